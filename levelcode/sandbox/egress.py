"""The egress filter's place in a sandboxed command line: the sandbox keeps no network of its own
(`--unshare-net`), and reaches the hosts on its list only through a proxy outside it.

    egress_proxy.py (host: checks each host, connects)  ── Unix socket, bound read-only into
        └─ bwrap --unshare-net …                            the sandbox at INSIDE_DIR ──┐
             └─ egress_forwarder.py (inside: 127.0.0.1:EGRESS_PORT → the socket)  ◄────┘
                  └─ the command or server, with HTTPS_PROXY=http://127.0.0.1:EGRESS_PORT

No I/O: builds argv and environment from an `EgressRoute`; starts nothing. The forwarder is
plumbing: whatever runs inside may talk to the socket directly, and gets the same answers —
the proxy alone decides. The fixed port is free: the sandbox's network namespace is new and
empty, and the forwarder binds it before the command starts.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.egress_rules import EgressRules
from levelcode.sandbox.locations import PRIVATE_TMP

EGRESS_PORT = 3128
INSIDE_DIR = Path("/tmp/.levelcode-egress")  # under the sandbox's private /tmp: a fresh mount point
SOCKET_NAME = "proxy.sock"
PROXY_SCRIPT = Path(__file__).with_name("egress_proxy.py")
FORWARDER_SCRIPT = Path(__file__).with_name("egress_forwarder.py")
# What proxy settings the usual tools read: curl, Python (urllib, requests, pip), uv, npm, and
# Node's own fetch from 24 on (NODE_USE_ENV_PROXY). NO_PROXY empty: nothing goes around it, and
# there is nothing around it to reach.
PROXY_VARIABLES = (
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "ALL_PROXY",
    "https_proxy",
    "http_proxy",
    "all_proxy",
    "npm_config_proxy",
    "npm_config_https_proxy",
)


@dataclass(frozen=True)
class EgressRoute:
    """A sandbox's way out: the hosts it may reach and how the user would allow another."""

    socket_dir: Path  # on the host; the proxy creates it (0700) when it starts, removes it when it ends
    rules: EgressRules
    hint: str  # the end of a refusal line: how to allow the host, which it may name as {host}
    environment: tuple[tuple[str, str], ...] = ()  # the package registries' variables, for the tools


def proxy_url() -> str:
    return f"http://127.0.0.1:{EGRESS_PORT}"


def proxy_environment(env: Mapping[str, str], route: EgressRoute) -> dict[str, str]:
    """`env` as the confined process gets it: every proxy setting pointed at the forwarder, and
    the registries found in the user's configuration where `env` names none of its own (one it
    names is kept: the proxy decides whether it is reached)."""
    return {
        **dict(route.environment),
        **env,
        **dict.fromkeys(PROXY_VARIABLES, proxy_url()),
        "NO_PROXY": "",
        "no_proxy": "",
        "npm_config_noproxy": "",
        "NODE_USE_ENV_PROXY": "1",
    }


def proxy_argv(route: EgressRoute, command: Sequence[str], *, python: str = sys.executable) -> list[str]:
    """`command` (bwrap and all) run under the egress proxy, which serves it and ends with it.
    `-I -S`: no site, no environment, no current folder on the import path."""
    args = [python, "-I", "-S", str(PROXY_SCRIPT), "--socket-dir", str(route.socket_dir)]
    args += [part for entry in route.rules.listed for part in ("--listed", entry.text())]
    args += [part for entry in route.rules.public for part in ("--public", entry.text())]
    return [*args, "--hint", route.hint, "--", *command]


def forwarder_argv(command: Sequence[str], *, python: str = sys.executable) -> list[str]:
    """`command` run inside the sandbox behind the forwarder."""
    socket = INSIDE_DIR / SOCKET_NAME
    return [python, "-I", "-S", str(FORWARDER_SCRIPT), str(socket), str(EGRESS_PORT), "--", *command]


def egress_mounts(route: EgressRoute) -> list[str]:
    """The proxy's folder, read-only at INSIDE_DIR: its socket is all that is in it, and a
    read-only mount does not stop connect(). Then what the forwarder runs from, where it lies under
    /tmp (a checkout or a Python there), read-only as on the host: the private /tmp would hide it."""
    shown = [
        part for folder in forwarder_folders_in_tmp() for part in ("--ro-bind", str(folder), str(folder))
    ]
    return ["--ro-bind", str(route.socket_dir), str(INSIDE_DIR), *shown]


def forwarder_folders_in_tmp() -> list[Path]:
    """The folders of the forwarder's script and of the Python that runs it (its environment and
    its base installation) that lie under /tmp; elsewhere they are in the sandbox already."""
    needed = {FORWARDER_SCRIPT.parent, Path(sys.prefix), Path(sys.base_prefix)}
    return sorted(folder for folder in needed if folder.is_relative_to(PRIVATE_TMP))
