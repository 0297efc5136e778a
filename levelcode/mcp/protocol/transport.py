"""The seam between the session and a transport: stdio (ours) and Streamable HTTP both plug in here.

A transport delivers every incoming message to its sink, already classified (jsonrpc.py), and
tells the sink once when the stream is over and why. The session above never learns which
transport it talks to, so timeouts, caps and error strings are the same for all of them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from levelcode.core.errors import McpError, TransportError
from levelcode.mcp.protocol.jsonrpc import Incoming, RequestId


class MessageSink(Protocol):
    def on_message(self, message: Incoming) -> None: ...

    def on_closed(self, error: TransportError) -> None: ...

    def fail_request(self, request_id: RequestId, error: McpError) -> None:
        """One request failed on its own (a remote server's POST was refused); the rest go on."""


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
        """The last lines worth showing in an error (a stdio server's stderr, a remote one's statuses)."""


@dataclass(frozen=True)
class AuthChallenge:
    """A remote server refused a request: what an authentication hook needs to decide what to do."""

    server: str
    url: str  # without query or user info
    status: int  # 401 or 403
    www_authenticate: str | None


# Given a refusal, returns headers to retry the request with once (after signing in, which may ask
# the user), or None to give up. Remote transports call it for a 401/403 on any request.
AuthHook = Callable[[AuthChallenge], Awaitable[Mapping[str, str] | None]]
