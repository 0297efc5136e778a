"""The hub: turns the servers it is allowed to start into live tool sources, and ends them all.

Connects every server it is given concurrently, each bounded by its own startup timeout, so one
slow or broken server never blocks or breaks another. `begin` starts connecting without waiting
(a session starts the user's own servers first thing, while it sets itself up); `start` waits for
the servers it is given, whether they were begun before or not. Which servers may start is decided before
the hub (the launch gate); the hub never starts anything it was not handed. `call` always returns
an outcome for the model, capped, with the full text spilled to a file when it was cut.
`reap_all` ends every server's process group; run it on exit, new chat and signals.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.core.errors import McpError, SignInRequired
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.core.private_files import write_private_text
from levelcode.core.progress import ProgressCallback
from levelcode.core.resource_changes import ResourceChanged
from levelcode.core.spill_files import SavedResult, SpillFiles, folded
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.connect_options import ConnectOptions
from levelcode.mcp.connection import McpConnection, connect
from levelcode.mcp.gates.status import NOT_STARTED, ServerStatus
from levelcode.mcp.gates.trust import launch_fingerprint
from levelcode.mcp.protocol.results import DEFAULT_RESULT_CHARS, cap_text
from levelcode.mcp.protocol_memory import ProtocolMemory
from levelcode.mcp.server_content import list_resources_outcome, read_resource

if TYPE_CHECKING:
    from levelcode.mcp.early_start import EarlyStart

LIST_REFRESH_SECONDS = 5.0  # a server slow to re-list keeps its last list for this turn

# Why a server is not running, as the model (and `mcp call`) is told it.
_NOT_RUNNING = {
    "waiting_approval": "needs approval",
    "denied": "the user declined to start it this session",
    "disabled": "disabled in config",
    "needs_login": "it needs the user to sign in first",
}


async def _either(opened: asyncio.Event, start: asyncio.Task[None]) -> None:
    waiting = asyncio.ensure_future(opened.wait())
    await asyncio.wait({waiting, start}, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()


def not_running_reason(status: ServerStatus) -> str:
    if status.phase == "failed":
        return f"failed: {status.detail}" if status.detail else "failed"
    if status.phase == "blocked" and status.detail:
        return status.detail
    return _NOT_RUNNING.get(status.phase, status.phase.replace("_", " "))


@dataclass
class ServerState:
    spec: ServerSpec
    status: ServerStatus = NOT_STARTED
    connection: McpConnection | None = None


class McpHub:
    def __init__(
        self,
        options: ConnectOptions,
        *,
        memory: ProtocolMemory | None = None,
        results_dir: Path | None = None,
        result_chars: int = DEFAULT_RESULT_CHARS,
        early: EarlyStart | None = None,
    ) -> None:
        """`early`: the servers spawned before the hub existed, launched with `options`; each is
        taken over when the hub starts that server, and ended at reaping if it never is."""
        self.options = options
        self.early = early
        self.memory = memory or ProtocolMemory(None)
        self.results_dir = results_dir
        self.result_chars = result_chars
        self.spills = SpillFiles()  # what this session saved: the read tool may read exactly these
        self.states: dict[str, ServerState] = {}
        self.on_tools_changed: Callable[[str], None] | None = None
        self._starting: dict[str, asyncio.Task[None]] = {}
        self._opened: dict[str, asyncio.Event] = {}
        self._begun: set[str] = set()  # started since the last reaping: started once, not again

    def begin(self, specs: Iterable[ServerSpec]) -> None:
        """Start connecting every given server now, without waiting (a running loop is needed)."""
        for spec in specs:
            if spec.name in self._begun:
                continue
            self._begun.add(spec.name)
            if spec.organisation is not None and spec.organisation.blocked is not None:
                # the launch gate holds it already; a caller that skipped the gate does not start it
                self.states[spec.name] = ServerState(spec, ServerStatus("blocked", spec.organisation.blocked))
                continue
            if spec.disabled:
                self.states[spec.name] = ServerState(spec, ServerStatus("disabled", spec.disabled_by))
                continue
            self.states[spec.name] = ServerState(spec, ServerStatus("starting"))
            self._opened[spec.name] = asyncio.Event()
            self._starting[spec.name] = asyncio.ensure_future(self._start_one(spec))

    async def spawned(self, within: float = 2.0) -> None:
        """Until every server begun has its process (and its first request) under way, or has
        ended its start, bounded by `within`: then the loop may be kept busy a while."""
        waits = [
            asyncio.ensure_future(_either(self._opened[name], task))
            for name, task in self._starting.items()
            if name in self._opened
        ]
        if waits:
            _done, pending = await asyncio.wait(waits, timeout=within)
            for wait in pending:
                wait.cancel()

    async def start(self, specs: Iterable[ServerSpec]) -> None:
        """Connect every given server at once (or wait for those begun already); afterwards each
        is `running`, `failed` or `disabled`."""
        given = list(specs)
        self.begin(given)
        pending = [self._starting[spec.name] for spec in given if spec.name in self._starting]
        await asyncio.gather(*pending)

    def still_starting(self) -> list[str]:
        """The servers begun whose start has not ended yet, in start order."""
        return [name for name, task in self._starting.items() if not task.done()]

    def hold(self, spec: ServerSpec, status: ServerStatus) -> None:
        """Record why a server the launch gate kept back was not started."""
        self.states[spec.name] = ServerState(spec, status)

    async def _start_one(self, spec: ServerSpec) -> None:
        state = self.states[spec.name]
        fingerprint = launch_fingerprint(spec)
        try:
            opened = self._opened[spec.name].set if spec.name in self._opened else None
            begun = self.early.take(spec) if self.early is not None else None
            hint = self.memory.get(fingerprint)
            connection = await connect(spec, self.options, hint=hint, opened=opened, begun=begun)
        except SignInRequired as exc:
            state.status = ServerStatus("needs_login", str(exc))
            return
        except McpError as exc:
            state.status = ServerStatus("failed", str(exc))
            return
        except asyncio.CancelledError:
            state.status = ServerStatus("failed", "start-up was interrupted")
            raise
        finally:
            self._starting.pop(spec.name, None)
            self._opened.pop(spec.name, None)
        if self.states.get(spec.name) is not state:  # reaped (or restarted) while it was starting
            await connection.close()
            return
        state.status, state.connection = ServerStatus("running"), connection
        connection.on_tools_changed = self._tools_changed
        self.memory.remember(fingerprint, connection.info.era)

    def _tools_changed(self, connection: McpConnection) -> None:
        if self.on_tools_changed is not None:
            self.on_tools_changed(connection.name)

    async def refresh_stale_lists(self, within: float = LIST_REFRESH_SECONDS) -> bool:
        """Before the model is asked again: re-list the tools of every server whose list's TTL ran
        out (2026-07-28 caching), all at once and bounded; whether any list changed."""
        connections = [c for c in self.connections() if c.tools_stale]
        if not connections:
            return False
        changed = await asyncio.gather(*(c.refresh_stale_tools(within) for c in connections))
        for connection, did in zip(connections, changed, strict=True):
            if did:
                self._tools_changed(connection)
        return any(changed)

    async def resource_changes(self, within: float = LIST_REFRESH_SECONDS) -> tuple[ResourceChanged, ...]:
        """The resources in use that changed since last asked, each once; an attached one read
        again (capped like a result) so its new copy can go to the model."""
        changes: list[ResourceChanged] = []
        for connection in self.connections():
            for update in connection.listening.take():
                if not update.attached:
                    changes.append(ResourceChanged(connection.name, update.uri))
                    continue
                try:
                    async with asyncio.timeout(within):
                        outcome = await read_resource(connection, update.uri, attached=True)
                except TimeoutError:
                    outcome = failure(f"no answer within {within:g} s")
                if outcome.is_error:
                    changes.append(ResourceChanged(connection.name, update.uri, problem=outcome.text))
                else:
                    text = cap_text(outcome.text, self.result_chars)
                    changes.append(ResourceChanged(connection.name, update.uri, contents=text))
        return tuple(changes)

    def connection(self, server: str) -> McpConnection | None:
        state = self.states.get(server)
        return state.connection if state is not None else None

    def listings(self) -> list[tuple[str, tuple[Mapping[str, object], ...]]]:
        """(server, raw tool specs) for every running server, in start order: the catalog's input."""
        return [(name, s.connection.tools) for name, s in self.states.items() if s.connection is not None]

    def resource_servers(self) -> set[str]:
        """The running servers that list resources (the model gets the resource tools for them)."""
        return {c.name for c in self.connections() if c.has_resources}

    def connections(self) -> list[McpConnection]:
        return [s.connection for s in self.states.values() if s.connection is not None]

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, object],
        *,
        on_progress: ProgressCallback | None = None,
    ) -> ToolOutcome:
        """What the model gets, capped. Never raises for anything the server does."""
        connection = self.connection(server)
        if connection is None:
            return self._not_running(server)
        outcome = await connection.call_tool(tool, arguments, on_progress=on_progress)
        return self._capped(server, tool, outcome)

    async def resource_call(self, server: str, kind: str, arguments: Mapping[str, object]) -> ToolOutcome:
        """The model's `list_resources` / `read_resource` on `server`, capped like a tool's result."""
        connection = self.connection(server)
        if connection is None:
            return self._not_running(server)
        if kind == "list_resources":
            outcome = await list_resources_outcome(connection)
        else:
            outcome = await read_resource(connection, arguments.get("uri"))
        return self._capped(server, kind, outcome)

    def _not_running(self, server: str) -> ToolOutcome:
        state = self.states.get(server)
        status = state.status if state is not None else NOT_STARTED
        return failure(f"MCP server {server!r} is not running ({not_running_reason(status)})")

    def roots_changed(self) -> None:
        """The workspace folders changed: tell every running server that asked for roots."""
        for connection in self.connections():
            connection.roots_changed()

    def _capped(self, server: str, tool: str, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome cut to the cap, the whole text saved to a file the note names (G4)."""
        if len(outcome.text) <= self.result_chars:
            return outcome
        saved = self._spill(server, tool, outcome.text)
        text = cap_text(outcome.text, self.result_chars, saved=saved)
        return dataclasses.replace(outcome, text=text, saved=saved)

    def _spill(self, server: str, tool: str, text: str) -> SavedResult | None:
        """The whole text in a 0600 file under results/ (0700), its long lines folded so that
        `read_file` can page through it; None when there is no results folder or it failed."""
        if self.results_dir is None:
            return None
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in f"{server}-{tool}")[:80]
        path = self.results_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{safe}-{time.monotonic_ns() % 10**6}.txt"
        try:
            write_private_text(path, folded(text))
        except OSError:
            return None
        self.spills.add(path)
        return SavedResult(str(path), len(text.encode("utf-8", "replace")))

    async def stop(self, server: str) -> None:
        state = self.states.get(server)
        if state is not None and state.connection is not None:
            connection, state.connection = state.connection, None
            state.status = ServerStatus("stopped")
            await connection.close()

    async def reap_all(self) -> None:
        """End every server's whole process group (stdin close → SIGTERM → SIGKILL), concurrently;
        a server still starting is stopped first (its start is cancelled, its process ended)."""
        starting = list(self._starting.values())
        for task in starting:
            task.cancel()
        await asyncio.gather(*starting, return_exceptions=True)
        self._begun.clear()
        if self.early is not None:
            self.early.end_untaken()  # spawned early for a start that never came
        live = [s.connection for s in self.states.values() if s.connection is not None]
        for state in self.states.values():
            if state.connection is not None:
                state.connection, state.status = None, ServerStatus("stopped")
        await asyncio.gather(*(c.close() for c in live), return_exceptions=True)
