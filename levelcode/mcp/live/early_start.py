"""The one place a server is spawned before the hub asks for it: the user's own stdio servers, the
moment a session has read its settings — before it imports and sets up the rest of LevelCode — so
their start-up overlaps ours.

Each launch is resolved here once, with the session's connection options (`EarlyStart.options`,
which the hub is then built from: live/runtime.hub_options), and handed to the hub with its process
when the hub starts that server (`take`); its transport joins the process to the loop and the
handshake goes on from there. Whatever the hub never takes is ended when it reaps (or when the
session gives up before it has a hub: `end_untaken`).

Only what starts without asking, and unconfined, is started here: the user's own servers (their
settings' and those they keep for this workspace alone, `-s local`), not disabled, stdio, whose
entry asks for no sandbox, and which the organisation's policy (read with the settings) neither
blocks, sandboxes nor replaces with a required server of the same name, in the session's profile
and not turned off in this workspace (mcp/config/server_selection.py). A
repository's servers wait for the launch gate as always; a server whose entry asks for the
sandbox is left to the hub, which wraps it (spawned here it would run unconfined); so is a server
whose launch cannot be resolved (a `${VAR}` unset), and the hub reports why. Light on purpose: no
event loop, no protocol, no gates beyond the plan.

The REPL spawns only as many as leave it a core (`at_most`) and the rest once its prompt is drawn
(`EarlyStart.start_held`): ten servers booting at once on two cores would otherwise hold the
prompt back for seconds, and servers that boot on CPU finish no sooner for starting together.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TypeGuard

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.files import own_tier
from levelcode.mcp.config.managed_servers import govern
from levelcode.mcp.config.server_selection import chosen_profile, select_specs
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec, TierConfig
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.resolve import server_launch
from levelcode.mcp.launch.server_box import server_box
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.mcp.stdio.spawn import end_unused, spawn_server
from levelcode.platform.workspace_servers import servers_off
from levelcode.policy.settings import Settings


@dataclass
class EarlyServer:
    """One server of the early start: its launch, resolved, and its process once spawned (None
    while held back, or when the spawn failed: its transport then tries, and says why)."""

    spec: StdioServerSpec
    launch: StdioLaunch
    process: subprocess.Popen[bytes] | None = None

    def spawn(self) -> bool:
        try:
            self.process = spawn_server(self.launch)
        except (OSError, subprocess.SubprocessError):
            return False
        return True


@dataclass
class EarlyStart:
    """The user's servers begun before the hub: spawned, or held back for later; `user`: the user
    tier they were read from (the session's configuration takes it, parsed once); `unresolved`:
    those whose launch could not be resolved, with why (the hub reports it, not resolving again)."""

    options: ConnectOptions
    user: TierConfig = field(default_factory=TierConfig)
    servers: dict[str, EarlyServer] = field(default_factory=dict[str, EarlyServer])
    held: list[str] = field(default_factory=list[str])
    unresolved: dict[str, tuple[StdioServerSpec, ServerStartError]] = field(
        default_factory=dict[str, tuple[StdioServerSpec, ServerStartError]]
    )

    @property
    def started(self) -> list[str]:
        return [name for name, server in self.servers.items() if server.process is not None]

    def start_held(self) -> list[str]:
        """Spawn the servers held back (from the thread that will run the loop); their names."""
        held, self.held = self.held, []
        return [name for name in held if name in self.servers and self.servers[name].spawn()]

    def take(self, spec: ServerSpec) -> EarlyServer | None:
        """The server begun for exactly this spec, handed over once; one begun for another entry
        of that name (the settings changed since) is ended, and None is returned. Raises the
        ServerStartError this very spec's launch could not be resolved with."""
        unresolved = self.unresolved.pop(spec.name, None)
        if unresolved is not None and unresolved[0] == spec:
            raise unresolved[1]
        begun = self.servers.pop(spec.name, None)
        if begun is not None and begun.spec != spec:
            _end(begun)
            return None
        return begun

    def end_untaken(self) -> None:
        """End every server spawned early that the hub never took (whole groups), and forget them."""
        while self.servers:
            _end(self.servers.popitem()[1])
        self.held.clear()
        self.unresolved.clear()


def start_user_servers(
    settings: Settings, options: ConnectOptions, *, at_most: int | None = None, profile: str | None = None
) -> EarlyStart:
    """Spawn the user's own stdio servers now (the first `at_most` of them; the rest are held):
    those of `profile` only, less those turned off in this workspace. Raises ConfigError for a
    profile the settings do not define."""
    file = str(settings.user_file)
    tier = own_tier(settings, options.workspace)  # settings.json's servers, and this workspace's own
    chosen = chosen_profile(settings.profiles, profile, file=file)
    early = EarlyStart(options, tier)
    selected = select_specs(govern(tier.servers, settings.managed), chosen, servers_off(options.workspace))
    for spec in selected:
        if not _starts_early(spec, settings.managed.required):
            continue
        try:
            server = EarlyServer(spec, server_launch(spec, options, os.environ))
        except ServerStartError as exc:
            early.unresolved[spec.name] = (spec, exc)  # the hub says why it cannot start
            continue
        early.servers[spec.name] = server
        if at_most is not None and len(early.started) >= at_most:
            early.held.append(spec.name)
        else:
            server.spawn()
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


def _end(server: EarlyServer) -> None:
    if server.process is not None:
        end_unused(server.process)
        server.process = None
