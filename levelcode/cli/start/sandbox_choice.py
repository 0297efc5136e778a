"""How a session's sandbox is chosen from the flags and the user's settings, under the
organisation's policy; shared by the agent and `levelcode sandbox`, so both confine commands the
same way. Light: no provider or MCP imports.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from levelcode.policy.settings import Settings
from levelcode.sandbox.confinement import Confinement, current_confinement
from levelcode.tools.base import ToolContext


def extra_roots(args: argparse.Namespace, settings: Settings) -> tuple[Path, ...]:
    """The folders beyond the workspace the tools may use: `allowedDirectories`, then `--add-dir`."""
    added = tuple(Path(d).expanduser().resolve() for d in getattr(args, "add_dirs", None) or ())
    return (*(folder.expanduser() for folder in settings.allowed_directories), *added)


def session_confinement(args: argparse.Namespace, settings: Settings) -> Confinement:
    """This machine's sandbox for commands; the whole network only with --allow-network or the
    user's `"network": true`, the hosts of --allow-host and the user's `"network": [...]` through
    the egress filter — none of it beyond what the organisation's policy allows."""
    policy = settings.managed
    wanted = bool(getattr(args, "allow_network", False)) or settings.sandbox_network
    typed = getattr(args, "allow_hosts", None) or ()
    network = wanted and policy.whole_network
    hosts = (*settings.sandbox_hosts, *(host for host in typed if policy.host_allowed(host)))
    return current_confinement(network=network, hosts=hosts)


def no_sandbox_notice(ctx: ToolContext) -> str | None:
    """Said once at start when commands cannot be confined: never silently unconfined."""
    if ctx.sandbox is not None and ctx.sandbox.available:
        return None
    reason = ctx.sandbox.reason if ctx.sandbox is not None else "none was set up"
    asks = "Autopilot too asks before every command" if ctx.autopilot else "Every command asks first"
    return (
        f"no sandbox for commands: {reason}. {asks} (a headless run refuses them), "
        "and a command you approve runs unconfined."
    )
