"""The hub: turns the servers it is allowed to start into live tool sources, and ends them all.

Connects every server it is given concurrently, each bounded by its own startup timeout, so one
slow or broken server never blocks or breaks another. `begin` starts connecting without waiting
(a session starts the user's own servers first thing, while it sets itself up); `start` waits for
the servers it is given, whether they were begun before or not. Which servers may start is decided before
the hub (the launch gate); the hub never starts anything it was not handed. `call` always returns
an outcome for the model, capped, with the full text spilled to a file when it was cut.
`reap_all` ends every server's process group; run it on exit, new chat and signals.

Every server's transports come from the hub's one `transports` planner (live/transports.py):
`transport_plan`, unless the hub was built with another (the tests' in-memory servers), which
then serves every start, restart and new chat of that hub alike.
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
from levelcode.core.outcome import SavedResult, ToolOutcome, failure
from levelcode.core.progress import ProgressCallback
from levelcode.core.resource_changes import ResourceChanged
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.server_box import SandboxChoice
from levelcode.mcp.launch.status import NOT_STARTED, ServerStatus, held_status
from levelcode.mcp.launch.trust import launch_fingerprint
from levelcode.mcp.live.connection import McpConnection, connect
from levelcode.mcp.live.protocol_memory import ProtocolMemory
from levelcode.mcp.live.server_content import list_resources_outcome, read_resource
from levelcode.mcp.live.transports import TransportPlanner, transport_plan
from levelcode.mcp.protocol.handshake import ServerInfo
from levelcode.mcp.protocol.results import DEFAULT_RESULT_CHARS, cap_text
from levelcode.platform.private_files import write_private_text
from levelcode.platform.spill_files import SpillFiles, folded

if TYPE_CHECKING:
    from levelcode.mcp.live.early_start import EarlyStart

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
class ServerHandle:
    """Everything the hub holds of one server, in one place: its entry, where it is (`status`), its
    connection while it runs, how the launch gate let it start (`sandbox`), and while it starts,
    the start itself and the moment its process exists (`opened`)."""

    spec: ServerSpec
    status: ServerStatus = NOT_STARTED
    connection: McpConnection | None = None
    sandbox: SandboxChoice | None = None  # a repository server approved to run in the sandbox
    start: asyncio.Task[None] | None = None  # while it starts
    opened: asyncio.Event | None = None  # set once its process exists and its first request is sent
    begun: bool = False  # started since the last reaping: started once, not again

    @property
    def starting(self) -> bool:
        return self.start is not None and not self.start.done()


class McpHub:
    def __init__(
        self,
        options: ConnectOptions,
        *,
        memory: ProtocolMemory | None = None,
        results_dir: Path | None = None,
        result_chars: int = DEFAULT_RESULT_CHARS,
        early: EarlyStart | None = None,
        transports: TransportPlanner = transport_plan,
    ) -> None:
        """`early`: the servers spawned before the hub existed, launched with `options`; each is
        taken over when the hub starts that server, and ended at reaping if it never is.
        `transports`: where every server's transports come from."""
        self.options = options
        self.early = early
        self.transports = transports
        self.memory = memory or ProtocolMemory(None)
        self.results_dir = results_dir
        self.result_chars = result_chars
        self.spills = SpillFiles()  # what this session saved: the read tool may read exactly these
        self.servers: dict[str, ServerHandle] = {}
        self.on_tools_changed: Callable[[str], None] | None = None
        self.on_resource_updated: Callable[[str, str], None] | None = None  # (server, uri), as it comes

    def begin(self, specs: Iterable[ServerSpec], sandbox: Mapping[str, SandboxChoice] | None = None) -> None:
        """Start connecting every given server now, without waiting (a running loop is needed);
        `sandbox`: how the launch gate let each repository server start, when in the sandbox."""
        for spec in specs:
            known = self.servers.get(spec.name)
            if known is not None and known.begun:
                continue
            held = held_status(spec)  # blocked or disabled: the launch gate holds it already, and
            if held is not None:  # a caller that skipped the gate does not start it either
                self.servers[spec.name] = ServerHandle(spec, held, begun=True)
                continue
            handle = ServerHandle(spec, ServerStatus("starting"), begun=True)
            handle.sandbox = (sandbox or {}).get(spec.name)
            handle.opened = asyncio.Event()
            handle.start = asyncio.ensure_future(self._start_one(handle))
            self.servers[spec.name] = handle

    async def spawned(self, within: float = 2.0) -> None:
        """Until every server begun has its process (and its first request) under way, or has
        ended its start, bounded by `within`: then the loop may be kept busy a while."""
        waits = [
            asyncio.ensure_future(_either(handle.opened, handle.start))
            for handle in self.servers.values()
            if handle.start is not None and handle.opened is not None
        ]
        if waits:
            _done, pending = await asyncio.wait(waits, timeout=within)
            for wait in pending:
                wait.cancel()

    async def start(
        self, specs: Iterable[ServerSpec], sandbox: Mapping[str, SandboxChoice] | None = None
    ) -> None:
        """Connect every given server at once (or wait for those begun already); afterwards each
        is `running`, `failed` or `disabled`."""
        given = list(specs)
        self.begin(given, sandbox)
        pending = [start for spec in given if (start := self.servers[spec.name].start) is not None]
        await asyncio.gather(*pending)

    def still_starting(self) -> list[str]:
        """The servers begun whose start has not ended yet, in start order."""
        return [name for name, handle in self.servers.items() if handle.starting]

    def hold(self, spec: ServerSpec, status: ServerStatus) -> None:
        """Record why a server the launch gate kept back was not started."""
        known = self.servers.get(spec.name)
        self.servers[spec.name] = ServerHandle(spec, status, begun=known is not None and known.begun)

    async def _start_one(self, handle: ServerHandle) -> None:
        spec = handle.spec
        fingerprint = launch_fingerprint(spec)
        try:
            opened = handle.opened.set if handle.opened is not None else None
            begun = self.early.take(spec) if self.early is not None else None
            hint = self.memory.get(fingerprint)
            connection = await connect(
                spec,
                self.options,
                hint=hint,
                opened=opened,
                begun=begun,
                sandbox=handle.sandbox,
                transports=self.transports,
            )
        except SignInRequired as exc:
            handle.status = ServerStatus("needs_login", str(exc))
            return
        except McpError as exc:
            handle.status = ServerStatus("failed", str(exc))
            return
        except asyncio.CancelledError:
            handle.status = ServerStatus("failed", "start-up was interrupted")
            raise
        finally:
            handle.start = handle.opened = None
        if self.servers.get(spec.name) is not handle:  # reaped (or restarted) while it was starting
            await connection.close()
            return
        handle.status, handle.connection = ServerStatus("running"), connection
        connection.on_tools_changed = self._tools_changed
        connection.on_resource_updated = self._resource_updated
        self.memory.remember(fingerprint, connection.info.era)

    def _tools_changed(self, connection: McpConnection) -> None:
        if self.on_tools_changed is not None:
            self.on_tools_changed(connection.name)

    def _resource_updated(self, connection: McpConnection, uri: str) -> None:
        if self.on_resource_updated is not None:
            self.on_resource_updated(connection.name, uri)

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
        handle = self.servers.get(server)
        return handle.connection if handle is not None else None

    def entries(self) -> dict[str, ServerSpec]:
        """The entry of every server the hub was given, running or not."""
        return {name: handle.spec for name, handle in self.servers.items()}

    def statuses(self) -> dict[str, ServerStatus]:
        return {name: handle.status for name, handle in self.servers.items()}

    def running_info(self) -> dict[str, ServerInfo]:
        """What each running server said of itself when it connected."""
        return {c.name: c.info for c in self.connections()}

    def listings(self) -> list[tuple[str, tuple[Mapping[str, object], ...]]]:
        """(server, raw tool specs) for every running server, in start order: the catalog's input."""
        return [(c.name, c.tools) for c in self.connections()]

    def resource_servers(self) -> set[str]:
        """The running servers that list resources (the model gets the resource tools for them)."""
        return {c.name for c in self.connections() if c.has_resources}

    def connections(self) -> list[McpConnection]:
        return [h.connection for h in self.servers.values() if h.connection is not None]

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, object],
        *,
        on_progress: ProgressCallback | None = None,
        whole: bool = False,
    ) -> ToolOutcome:
        """What the model gets, capped (`whole`: not cut, for a script reading `mcp call`).
        Never raises for anything the server does."""
        connection = self.connection(server)
        if connection is None:
            return self._not_running(server)
        outcome = await connection.call_tool(tool, arguments, on_progress=on_progress)
        return outcome if whole else self._capped(server, tool, outcome)

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
        handle = self.servers.get(server)
        status = handle.status if handle is not None else NOT_STARTED
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
        handle = self.servers.get(server)
        if handle is not None and handle.connection is not None:
            connection, handle.connection = handle.connection, None
            handle.status = ServerStatus("stopped")
            await connection.close()

    async def reset(self, server: str) -> None:
        """Before one server starts again: its start stopped, its connection ended, and its handle
        new (in its place in the start order), so `begin` starts it afresh."""
        handle = self.servers.get(server)
        if handle is None:
            return
        start, connection = handle.start, handle.connection
        self.servers[server] = ServerHandle(handle.spec)
        if start is not None:
            start.cancel()  # its connection, if it comes, is closed: the handle is no longer its own
            await asyncio.gather(start, return_exceptions=True)
        if connection is not None:
            await connection.close()

    async def reap_all(self) -> None:
        """End every server's whole process group (stdin close → SIGTERM → SIGKILL), concurrently;
        a server still starting is stopped first (its start is cancelled, its process ended)."""
        starting = [handle.start for handle in self.servers.values() if handle.start is not None]
        for task in starting:
            task.cancel()
        await asyncio.gather(*starting, return_exceptions=True)
        if self.early is not None:
            self.early.end_untaken()  # spawned early for a start that never came
        live = self.connections()
        for handle in self.servers.values():
            handle.begun = False
            if handle.connection is not None:
                handle.connection, handle.status = None, ServerStatus("stopped")
        await asyncio.gather(*(c.close() for c in live), return_exceptions=True)

    async def renew(self, options: ConnectOptions, early: EarlyStart | None = None) -> None:
        """A new chat: every server ended and forgotten, and the next ones started with `options`
        (the settings may have changed) and `early`'s launches (the new start's plan). Options
        change only here, with nothing running."""
        await self.reap_all()
        self.servers.clear()
        self.options = options
        self.early = early
