"""The egress filter never reaches this machine by a name the user did not list: a `*.` wildcard
the user allows, or a package manager's default registry, whose name resolves to one of this
machine's own addresses that are neither loopback nor private (a public IPv4, a global IPv6).
End to end inside a network namespace the test makes (tests/support/netns.py: a veth pair with
such addresses, a stand-in service listening on them, the names resolving to them there), with
the real CLI, bwrap, proxy, curl and npx all run inside it.

Load-bearing direction (the attack): the service receives nothing — by the wildcard, IPv4 and
IPv6, or by npm's default registry — and the refusal says why. The second corpus: the same name
listed by the user (a deliberate choice of that machine) is reached. Needs `ip netns` (root):
skipped where it is not permitted, with the reason.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.policy.network_hosts import is_public_address
from levelcode.sandbox.egress_rules import PRIVATE_ONLY
from tests.support.cli import LEVELCODE, cli_env
from tests.support.netns import OWN_IPV4, OWN_IPV6, Namespace, listening_inside, network_namespace, received
from tests.support.registries import PACKAGE
from tests.support.sandbox import repository_server, server_log

pytestmark = pytest.mark.sandbox

NAMES = {
    "svc4.own.test": [OWN_IPV4],
    "svc6.own.test": [OWN_IPV6],
    "registry.npmjs.org": [OWN_IPV6, OWN_IPV4],  # npm's default registry
}


@pytest.fixture
def inside(tmp_path: Path) -> Iterator[tuple[Namespace, Path]]:
    """The namespace, and the file where the service inside it records what reached it."""
    assert all(map(is_public_address, (OWN_IPV4, OWN_IPV6)))  # the attack's premise
    with (
        network_namespace(NAMES) as namespace,
        listening_inside(namespace, tmp_path / "received", [OWN_IPV4, OWN_IPV6]) as record,
    ):
        yield namespace, record


def levelcode_inside(
    namespace: Namespace, home: Path, workspace: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        namespace.command(str(LEVELCODE), "-C", str(workspace), *args),
        capture_output=True,
        text=True,
        env=cli_env(home),
        timeout=180,
        check=False,
    )


def curl(namespace: Namespace, home: Path, workspace: Path, allowed: str, name: str) -> str:
    """`levelcode sandbox --allow-host ALLOWED -- curl http://NAME/`: all it wrote."""
    fetch = ["curl", "-sS", "-m", "20", f"http://{name}/"]
    done = levelcode_inside(namespace, home, workspace, "sandbox", "--allow-host", allowed, "--", *fetch)
    return done.stdout + done.stderr


@pytest.mark.parametrize("name", ["svc4.own.test", "svc6.own.test"])
def test_a_wildcard_never_reaches_an_address_of_this_machine(
    isolated_home: Path, tmp_path: Path, inside: tuple[Namespace, Path], name: str
) -> None:
    namespace, record = inside
    said = curl(namespace, isolated_home, tmp_path, "*.own.test", name)
    assert received(record) == b"", said
    assert "reached" not in said
    assert f"[sandbox] refused a connection to {name}:80: {PRIVATE_ONLY}" in said
    listed = curl(namespace, isolated_home, tmp_path, name, name)  # the user's choice of that machine
    assert listed.endswith("reached"), listed
    assert f"Host: {name}".encode() in received(record)


def test_npms_default_registry_never_reaches_an_address_of_this_machine(
    isolated_home: Path, tmp_path: Path, inside: tuple[Namespace, Path]
) -> None:
    """A repository's `npx -y` server, approved sandboxed, reaches npm's default registry; where
    that name resolves to this machine, npm's first request would go to the service here."""
    namespace, record = inside
    repository_server(isolated_home, tmp_path, {"command": "npx", "args": ["-y", PACKAGE]})
    done = levelcode_inside(
        namespace, isolated_home, tmp_path, "mcp", "call", "repo", "echo", json.dumps({"text": "hi"})
    )
    said = done.stdout + done.stderr + server_log(isolated_home, "repo")
    assert received(record) == b"", said
    assert f"[sandbox] refused a connection to registry.npmjs.org:443: {PRIVATE_ONLY}" in said
