"""The egress filter's place in the confined command line. Load-bearing direction: a policy with a
route out still cuts the sandbox's own network (`--unshare-net`): the route adds a proxy outside
and a forwarder inside, never the host's network; every proxy variable the usual tools read
points at the forwarder, with nothing exempted (NO_PROXY empty). The second corpus: the proxy's
folder is mounted over the private /tmp (after it, or it would be hidden), the registries found
reach the command unless it names its own, and a policy with the whole network gets no proxy."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from levelcode.sandbox.egress import (
    EGRESS_PORT,
    FORWARDER_SCRIPT,
    INSIDE_DIR,
    PROXY_SCRIPT,
    PROXY_VARIABLES,
    EgressRoute,
)
from levelcode.sandbox.egress_rules import EgressRules
from levelcode.sandbox.policy import SandboxPolicy, confine, describe_policy

FOLDER = Path("/home/u/.local/state/levelcode/sandbox/egress/abc")
ROUTE = EgressRoute(
    FOLDER,
    EgressRules.from_texts(["api.example.com"], ["registry.npmjs.org"]),
    'add "{host}"',
    (("npm_config_registry", "https://registry.npmjs.org/"),),
)
POLICY = SandboxPolicy(workdir=Path("/ws"), egress=ROUTE)


def test_the_proxy_runs_outside_and_the_forwarder_inside_a_sandbox_without_a_network() -> None:
    argv, _ = confine(["npx", "-y", "pkg"], {}, POLICY, bwrap="bwrap")
    assert argv[:4] == [sys.executable, "-I", "-S", str(PROXY_SCRIPT)]
    outside, inside = argv[: argv.index("bwrap")], argv[argv.index("bwrap") :]
    assert outside[4:] == [
        "--socket-dir",
        str(FOLDER),
        "--listed",
        "api.example.com",
        "--public",
        "registry.npmjs.org",
        "--hint",
        'add "{host}"',
        "--",
    ]
    assert "--unshare-net" in inside
    command = inside[inside.index("--chdir") + 3 :]
    assert command == [
        sys.executable,
        "-I",
        "-S",
        str(FORWARDER_SCRIPT),
        str(INSIDE_DIR / "proxy.sock"),
        str(EGRESS_PORT),
        "--",
        "npx",
        "-y",
        "pkg",
    ]


def test_the_proxys_folder_is_mounted_read_only_over_the_private_tmp() -> None:
    argv, _ = confine(["true"], {}, POLICY, bwrap="bwrap")
    argv = argv[argv.index("bwrap") :]
    tmp = argv.index("--tmpfs")
    mount = argv.index(str(FOLDER))
    assert argv[mount - 1 : mount + 2] == ["--ro-bind", str(FOLDER), str(INSIDE_DIR)]
    assert tmp < mount
    assert INSIDE_DIR.is_relative_to("/tmp")


def test_every_proxy_variable_points_at_the_forwarder_and_none_is_exempted() -> None:
    _, env = confine(
        ["true"], {"HTTPS_PROXY": "http://corp:8080", "NO_PROXY": "*", "PATH": "/bin"}, POLICY, bwrap="b"
    )
    for name in PROXY_VARIABLES:
        assert env[name] == f"http://127.0.0.1:{EGRESS_PORT}"
    assert env["NO_PROXY"] == env["no_proxy"] == env["npm_config_noproxy"] == ""
    assert env["PATH"] == "/bin"
    assert env["npm_config_registry"] == "https://registry.npmjs.org/"


def test_a_registry_the_command_names_itself_is_kept_for_the_proxy_to_judge() -> None:
    _, env = confine(["true"], {"npm_config_registry": "https://other.example/"}, POLICY, bwrap="b")
    assert env["npm_config_registry"] == "https://other.example/"


def test_with_the_whole_network_there_is_no_proxy() -> None:
    online = dataclasses.replace(POLICY, network=True)
    argv, env = confine(["true"], {}, online, bwrap="bwrap")
    assert argv[0] == "bwrap"
    assert "--unshare-net" not in argv
    assert str(FORWARDER_SCRIPT) not in argv
    assert "HTTPS_PROXY" not in env


def test_the_summary_names_the_hosts() -> None:
    assert describe_policy(POLICY).endswith("network only to api.example.com, registry.npmjs.org")
