"""The hub: turns the servers it is allowed to start into live tool sources, and ends them all.

Connects every server it is given concurrently, each bounded by its own startup timeout, so one
slow or broken server never blocks or breaks another. Which servers may start is decided before
the hub (the launch gate); the hub never starts anything it was not handed. `call` always returns
a string for the model, capped, with the full text spilled to a file when it was cut.
`reap_all` ends every server's process group; run it on exit, new chat and signals.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.core.errors import McpError
from levelcode.core.private_files import write_private_text
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.connection import ConnectOptions, McpConnection, connect
from levelcode.mcp.gates.trust import launch_fingerprint
from levelcode.mcp.protocol.handshake import finish_background_closes
from levelcode.mcp.protocol.results import DEFAULT_RESULT_CHARS, cap_text
from levelcode.mcp.protocol_memory import ProtocolMemory

ServerStatus = Literal["starting", "running", "failed", "disabled", "not_started"]


@dataclass
class ServerState:
    spec: ServerSpec
    status: ServerStatus
    reason: str | None = None
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
                self.states[spec.name] = ServerState(spec, "disabled", "disabled in config")
            else:
                self.states[spec.name] = ServerState(spec, "starting")
                starting.append(spec)
        await asyncio.gather(*(self._start_one(spec) for spec in starting))

    def mark_not_started(self, spec: ServerSpec, reason: str) -> None:
        self.states[spec.name] = ServerState(spec, "not_started", reason)

    async def _start_one(self, spec: ServerSpec) -> None:
        state = self.states[spec.name]
        fingerprint = launch_fingerprint(spec)
        try:
            connection = await connect(spec, self.options, hint=self.memory.get(fingerprint))
        except McpError as exc:
            state.status, state.reason = "failed", str(exc)
            return
        state.status, state.connection = "running", connection
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

    async def call(self, server: str, tool: str, arguments: Mapping[str, object]) -> tuple[str, bool]:
        """(text for the model, is_error). Never raises for anything the server does."""
        connection = self.connection(server)
        if connection is None:
            state = self.states.get(server)
            why = f" ({state.status}: {state.reason})" if state and state.reason else ""
            return f"ERROR: MCP server {server!r} is not running{why}", True
        rendered = await connection.call_tool(tool, arguments)
        return self._capped(server, tool, rendered.text), rendered.is_error

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
            state.status, state.reason = "not_started", "stopped"
            await connection.close()

    async def reap_all(self) -> None:
        """End every server's whole process group (stdin close → SIGTERM → SIGKILL), concurrently."""
        live = [s.connection for s in self.states.values() if s.connection is not None]
        for state in self.states.values():
            if state.connection is not None:
                state.connection, state.status, state.reason = None, "not_started", "stopped"
        await asyncio.gather(*(c.close() for c in live), finish_background_closes(), return_exceptions=True)
