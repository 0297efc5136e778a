"""The seam between the session and a transport: stdio (ours) and Streamable HTTP both plug in here.

A transport delivers every incoming message to its sink, already classified (jsonrpc.py), and
tells the sink once when the stream is over and why. The session above never learns which
transport it talks to, so timeouts, caps and error strings are the same for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from levelcode.errors import TransportError
from levelcode.mcp.jsonrpc import Incoming


class MessageSink(Protocol):
    def on_message(self, message: Incoming) -> None: ...

    def on_closed(self, error: TransportError) -> None: ...


class Transport(Protocol):
    @property
    def server(self) -> str: ...

    async def open(self, sink: MessageSink) -> None:
        """Start (spawn or connect); raises ServerStartError when that fails."""

    def send(self, message: Mapping[str, object]) -> None:
        """Queue one message; raises TransportError once the transport is closed."""

    async def close(self) -> None:
        """Stop and release everything; safe to call more than once."""

    def diagnostics(self) -> tuple[str, ...]:
        """The last lines worth showing in an error (a stdio server's stderr)."""
