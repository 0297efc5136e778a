"""The hub: turns the servers it is allowed to start into live tool sources, and ends them all.

Connects every server it is given concurrently, each bounded by its own startup timeout, so one
slow or broken server never blocks or breaks another. Which servers may start is decided before
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

from levelcode.core.errors import McpError
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.core.private_files import write_private_text
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.connect_options import ConnectOptions
from levelcode.mcp.connection import McpConnection, connect
from levelcode.mcp.gates.status import NOT_STARTED, ServerStatus
from levelcode.mcp.gates.trust import launch_fingerprint
from levelcode.mcp.protocol.results import DEFAULT_RESULT_CHARS, cap_text
from levelcode.mcp.protocol_memory import ProtocolMemory

# Why a server is not running, as the model (and `mcp call`) is told it.
_NOT_RUNNING = {
    "waiting_approval": "needs approval",
    "denied": "the user declined to start it this session",
    "disabled": "disabled in config",
}


def not_running_reason(status: ServerStatus) -> str:
    if status.phase == "failed":
        return f"failed: {status.detail}" if status.detail else "failed"
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
    ) -> None:
        self.options = options
        self.memory = memory or ProtocolMemory(None)
        self.results_dir = results_dir
        self.result_chars = result_chars
        self.states: dict[str, ServerState] = {}
        self.on_tools_changed: Callable[[str], None] | None = None

    async def start(self, specs: Iterable[ServerSpec]) -> None:
        """Connect every given server at once; afterwards each is `running`, `failed` or `disabled`."""
        starting: list[ServerSpec] = []
        for spec in specs:
            if spec.disabled:
                self.states[spec.name] = ServerState(spec, ServerStatus("disabled"))
            else:
                self.states[spec.name] = ServerState(spec, ServerStatus("starting"))
                starting.append(spec)
        await asyncio.gather(*(self._start_one(spec) for spec in starting))

    def hold(self, spec: ServerSpec, status: ServerStatus) -> None:
        """Record why a server the launch gate kept back was not started."""
        self.states[spec.name] = ServerState(spec, status)

    async def _start_one(self, spec: ServerSpec) -> None:
        state = self.states[spec.name]
        fingerprint = launch_fingerprint(spec)
        try:
            connection = await connect(spec, self.options, hint=self.memory.get(fingerprint))
        except McpError as exc:
            state.status = ServerStatus("failed", str(exc))
            return
        state.status, state.connection = ServerStatus("running"), connection
        connection.on_tools_changed = self._tools_changed
        self.memory.remember(fingerprint, connection.info.era)

    def _tools_changed(self, connection: McpConnection) -> None:
        if self.on_tools_changed is not None:
            self.on_tools_changed(connection.name)

    def connection(self, server: str) -> McpConnection | None:
        state = self.states.get(server)
        return state.connection if state is not None else None

    def listings(self) -> list[tuple[str, tuple[Mapping[str, object], ...]]]:
        """(server, raw tool specs) for every running server, in start order: the catalog's input."""
        return [(name, s.connection.tools) for name, s in self.states.items() if s.connection is not None]

    async def call(self, server: str, tool: str, arguments: Mapping[str, object]) -> ToolOutcome:
        """What the model gets, capped. Never raises for anything the server does."""
        connection = self.connection(server)
        if connection is None:
            state = self.states.get(server)
            status = state.status if state is not None else NOT_STARTED
            return failure(f"MCP server {server!r} is not running ({not_running_reason(status)})")
        outcome = await connection.call_tool(tool, arguments)
        return dataclasses.replace(outcome, text=self._capped(server, tool, outcome.text))

    def _capped(self, server: str, tool: str, text: str) -> str:
        if len(text) <= self.result_chars:
            return text
        return cap_text(text, self.result_chars, spill_path=self._spill(server, tool, text))

    def _spill(self, server: str, tool: str, text: str) -> str | None:
        if self.results_dir is None:
            return None
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in f"{server}-{tool}")[:80]
        path = self.results_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{safe}-{time.monotonic_ns() % 10**6}.txt"
        try:
            write_private_text(path, text)
        except OSError:
            return None
        return str(path)

    async def stop(self, server: str) -> None:
        state = self.states.get(server)
        if state is not None and state.connection is not None:
            connection, state.connection = state.connection, None
            state.status = ServerStatus("stopped")
            await connection.close()

    async def reap_all(self) -> None:
        """End every server's whole process group (stdin close → SIGTERM → SIGKILL), concurrently."""
        live = [s.connection for s in self.states.values() if s.connection is not None]
        for state in self.states.values():
            if state.connection is not None:
                state.connection, state.status = None, ServerStatus("stopped")
        await asyncio.gather(*(c.close() for c in live), return_exceptions=True)
