"""The one place a server is spawned before the hub asks for it: the servers of the start's plan
that start unasked, the moment a session has read its settings — before it imports and sets up
the rest of LevelCode — so their start-up overlaps ours.

Which servers, and each one's launch, the plan decided (mcp/launch/server_plan.py: selected once,
resolved once, with the options the hub is then built from); here they are only spawned, and
handed to the hub with their process when it starts each of them (`take`); its transport joins
the process to the loop and the handshake goes on from there. A planned server not spawned (one
that needs the sandbox around it, or a start that spawns nothing early) is handed over with its
launch alone. Whatever the hub never takes is ended when it reaps (or when the session gives up
before it has a hub: `end_untaken`). A repository's servers wait for the launch gate as always.
Light on purpose: no event loop, no protocol, no gates beyond the plan.

The REPL spawns only as many as leave it a core (`at_most`) and the rest once its prompt is drawn
(`EarlyStart.start_held`): ten servers booting at once on two cores would otherwise hold the
prompt back for seconds, and servers that boot on CPU finish no sooner for starting together.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.server_plan import ServerPlan
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.mcp.stdio.spawn import end_unused, spawn_server


@dataclass
class EarlyServer:
    """One planned server: its launch, resolved, and its process once spawned (None while held
    back, never spawned early, or when the spawn failed: its transport then tries, and says why)."""

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
    """The plan's servers begun before the hub (`servers`: spawned, held back for later, or left
    to the hub with their launch); `unresolved`: those whose launch could not be resolved, with
    why (the hub reports it, not resolving again)."""

    plan: ServerPlan
    servers: dict[str, EarlyServer] = field(default_factory=dict[str, EarlyServer])
    held: list[str] = field(default_factory=list[str])
    unresolved: dict[str, tuple[StdioServerSpec, ServerStartError]] = field(
        default_factory=dict[str, tuple[StdioServerSpec, ServerStartError]]
    )

    def __post_init__(self) -> None:
        for name, planned in self.plan.launches.items():
            if planned.launch is not None:
                self.servers.setdefault(name, EarlyServer(planned.spec, planned.launch))
            elif planned.error is not None:
                self.unresolved.setdefault(name, (planned.spec, planned.error))

    @property
    def options(self) -> ConnectOptions:
        return self.plan.options

    @property
    def started(self) -> list[str]:
        return [name for name, server in self.servers.items() if server.process is not None]

    def start_held(self) -> list[str]:
        """Spawn the servers held back (from the thread that will run the loop); their names."""
        held, self.held = self.held, []
        return [name for name in held if name in self.servers and self.servers[name].spawn()]

    def take(self, spec: ServerSpec) -> EarlyServer | None:
        """The server planned for exactly this spec, handed over once; one begun for another entry
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


def start_planned(plan: ServerPlan, *, at_most: int | None = None) -> EarlyStart:
    """Spawn the plan's servers that start unasked and unconfined now (the first `at_most` of
    them; the rest are held for `start_held`)."""
    early = EarlyStart(plan)
    for planned in plan.spawned_early():
        if at_most is not None and len(early.started) >= at_most:
            early.held.append(planned.spec.name)
        else:
            early.servers[planned.spec.name].spawn()
    return early


def cores_for_servers() -> int:
    """How many servers may boot beside the REPL before its prompt: all cores but the one it needs."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores - 1)


def _end(server: EarlyServer) -> None:
    if server.process is not None:
        end_unused(server.process)
        server.process = None
