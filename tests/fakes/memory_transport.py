"""An in-memory MCP transport: the server is a function from each message sent to the messages it
answers, delivered on the next loop iteration. No processes, no sockets, no sleeps — for session,
handshake and connection tests that need the protocol, not a real server's timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from levelcode.core.errors import ServerExited, TransportError
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.transport import MessageSink

Peer = Callable[[Mapping[str, object]], list[jsonrpc.Incoming]]


def silent_peer(_message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
    return []


class MemoryTransport:
    """One fake server connection. `exit_on` names methods on which the fake server "exits"."""

    def __init__(self, peer: Peer = silent_peer, *, name: str = "mem", exit_on: frozenset[str] = frozenset()):
        self.peer = peer
        self.name = name
        self.exit_on = exit_on
        self.sent: list[Mapping[str, object]] = []
        self.stderr: list[str] = ["stderr line"]  # what `diagnostics` shows, as a process's stderr
        self.sink: MessageSink | None = None
        self.opened = False
        self.closed = False
        self._sent_changed = asyncio.Event()

    @property
    def server(self) -> str:
        return self.name

    @property
    def process_id(self) -> int | None:
        return None

    @property
    def diagnostics_title(self) -> str:
        return "last stderr lines"

    async def open(self, sink: MessageSink) -> None:
        self.sink = sink
        self.opened = True

    def send(self, message: Mapping[str, object]) -> None:
        if self.closed:
            raise TransportError("closed", server=self.name)
        self.sent.append(message)
        self._sent_changed.set()
        loop = asyncio.get_running_loop()
        if message.get("method") in self.exit_on:
            loop.call_soon(self.exit, "exit code 1")
            return
        for reply in self.peer(message):
            loop.call_soon(self.deliver, reply)

    def deliver(self, message: jsonrpc.Incoming) -> None:
        if self.sink is not None and not self.closed:
            self.sink.on_message(message)

    def exit(self, detail: str) -> None:
        """The fake server dies: the session sees its stream end."""
        if self.sink is not None and not self.closed:
            self.closed = True
            self.sink.on_closed(
                ServerExited(f"the server exited ({detail})", server=self.name, detail=detail)
            )

    async def close(self) -> None:
        self.closed = True

    def diagnostics(self) -> tuple[str, ...]:
        return tuple(self.stderr)

    def methods(self) -> list[str]:
        return [str(m.get("method")) for m in self.sent if "method" in m]

    async def wait_sent(self, count: int, within: float = 5.0) -> None:
        """Until at least `count` messages were sent (answers to the server's requests are async)."""
        async with asyncio.timeout(within):
            while len(self.sent) < count:
                self._sent_changed.clear()
                await self._sent_changed.wait()
