"""The user's own stdio servers, spawned the moment a session has read its settings — before it
imports and sets up the rest of LevelCode — so their start-up overlaps ours. Their transports
claim the processes when the hub connects (stdio/early.py), and the handshake goes on from there.

Only what starts without asking, and unconfined, is started here: servers of the user tier, not
disabled, stdio, whose entry asks for no sandbox. A repository's servers wait for the launch gate
as always; a server whose entry asks for the sandbox is left to the hub, which wraps it (spawned
here it would run unconfined until claimed, and its claim would never match); so is a server
whose launch cannot be resolved (a `${VAR}` unset), and the hub reports why. Light on purpose: no event loop,
no gates beyond the launch plan, no SDK.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeGuard

from levelcode.core import paths
from levelcode.core.errors import ServerStartError
from levelcode.core.settings import Settings
from levelcode.mcp.config.environment import NOTHING_WITHHELD
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec, parse_user_settings
from levelcode.mcp.gates.server_box import server_box
from levelcode.mcp.launch import server_launch
from levelcode.mcp.protocol.transport import DEFAULT_MAX_MESSAGE_BYTES
from levelcode.mcp.stdio.early import spawn_early


def start_user_servers(workspace: Path, settings: Settings) -> list[str]:
    """Spawn the user's own stdio servers now; the names of those started."""
    tier = parse_user_settings(settings.user, file=str(settings.user_file))
    started = []
    for spec in tier.servers:
        if _starts_early(spec) and _spawn(spec, workspace):
            started.append(spec.name)
    return started


def _starts_early(spec: ServerSpec) -> TypeGuard[StdioServerSpec]:
    return isinstance(spec, StdioServerSpec) and not spec.disabled and server_box(spec) is None


def _spawn(spec: StdioServerSpec, workspace: Path) -> bool:
    # the options runtime.make_hub gives the hub, so the transport recognizes the process as its own
    try:
        launch = server_launch(
            spec,
            os.environ,
            workspace=workspace,
            servers_dir=paths.servers_dir(),
            log_dir=paths.logs_dir(),
            max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES,
            withheld=NOTHING_WITHHELD,
        )
    except ServerStartError:
        return False
    return spawn_early(launch)
