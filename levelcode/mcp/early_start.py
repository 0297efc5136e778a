"""The user's own stdio servers, spawned the moment a session has read its settings — before it
imports and sets up the rest of LevelCode — so their start-up overlaps ours. Their transports
claim the processes when the hub connects (stdio/early.py), and the handshake goes on from there.

Only what starts without asking, and unconfined, is started here: servers of the user tier, not
disabled, stdio, whose entry asks for no sandbox, and which the organisation's policy (read with
the settings) neither blocks, sandboxes nor replaces with a required server of the same name, in
the session's profile and not turned off in this workspace (mcp/config/server_selection.py). A
repository's servers wait for the launch gate as always; a server whose entry asks for the
sandbox is left to the hub, which wraps it (spawned here it would run unconfined until claimed,
and its claim would never match); so is a server whose launch cannot be resolved (a `${VAR}`
unset), and the hub reports why. Light on purpose: no event loop, no gates beyond the launch
plan, no SDK.

The REPL spawns only as many as leave it a core (`at_most`) and the rest once its prompt is drawn
(`EarlyStart.start_held`): ten servers booting at once on two cores would otherwise hold the
prompt back for seconds, and servers that boot on CPU finish no sooner for starting together.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from levelcode.core import paths
from levelcode.core.errors import ServerStartError
from levelcode.core.settings import Settings
from levelcode.core.workspace_servers import servers_off
from levelcode.mcp.config.environment import NOTHING_WITHHELD
from levelcode.mcp.config.managed_servers import govern
from levelcode.mcp.config.server_selection import PROFILES_KEY, chosen_profile, parse_profiles, select_specs
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec, parse_user_settings
from levelcode.mcp.gates.server_box import server_box
from levelcode.mcp.launch.resolve import server_launch
from levelcode.mcp.protocol.limits import DEFAULT_MAX_MESSAGE_BYTES
from levelcode.mcp.stdio.early import spawn_early
from levelcode.mcp.stdio.launch_spec import StdioLaunch


@dataclass
class EarlyStart:
    """The user's servers begun before the session: those started, and those held back for later."""

    started: list[str] = field(default_factory=list[str])
    held: list[tuple[str, StdioLaunch]] = field(default_factory=list[tuple[str, StdioLaunch]])
    # what was spawned at once, for the next run of the same command line (stdio/remembered.py)
    launched: list[tuple[StdioServerSpec, StdioLaunch]] = field(
        default_factory=list[tuple[StdioServerSpec, StdioLaunch]]
    )

    def start_held(self) -> list[str]:
        """Spawn the servers held back (from the thread that will run the loop); their names."""
        held, self.held = self.held, []
        now = [name for name, launch in held if spawn_early(launch)]
        self.started.extend(now)
        return now


def start_user_servers(
    workspace: Path, settings: Settings, *, at_most: int | None = None, profile: str | None = None
) -> EarlyStart:
    """Spawn the user's own stdio servers now (the first `at_most` of them; the rest are held):
    those of `profile` only, less those turned off in this workspace. Raises ConfigError for a
    profile the settings do not define."""
    file = str(settings.user_file)
    tier = parse_user_settings(settings.user, file=file)
    profiles, _problems = parse_profiles(settings.user.get(PROFILES_KEY), file=file)  # said by config loading
    chosen = chosen_profile(profiles, profile, file=file)
    early = EarlyStart()
    for spec in select_specs(govern(tier.servers, settings.managed), chosen, servers_off(workspace)):
        if not _starts_early(spec, settings.managed.required):
            continue
        launch = _launch(spec, workspace)
        if launch is None:
            continue
        if at_most is not None and len(early.started) >= at_most:
            early.held.append((spec.name, launch))
        elif spawn_early(launch):
            early.started.append(spec.name)
            early.launched.append((spec, launch))
    return early


def cores_for_servers() -> int:
    """How many servers may boot beside the REPL before its prompt: all cores but the one it needs."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores - 1)


def _starts_early(spec: ServerSpec, required: Collection[str]) -> TypeGuard[StdioServerSpec]:
    """Started without asking and unconfined — and not a name the organisation's policy requires,
    whose own server wins that name (config/specs.py merge_tiers): this entry never runs."""
    governed = spec.organisation is None or spec.organisation.blocked is None
    wanted = governed and not spec.disabled and spec.name not in required
    return isinstance(spec, StdioServerSpec) and wanted and server_box(spec) is None


def _launch(spec: StdioServerSpec, workspace: Path) -> StdioLaunch | None:
    # the options runtime.make_hub gives the hub, so the transport recognizes the process as its own
    try:
        return server_launch(
            spec,
            os.environ,
            workspace=workspace,
            servers_dir=paths.servers_dir(),
            log_dir=paths.logs_dir(),
            max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES,
            withheld=NOTHING_WITHHELD,
        )
    except ServerStartError:
        return None
