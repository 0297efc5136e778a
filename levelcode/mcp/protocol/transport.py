"""The seam between the session and a transport: stdio (ours) and Streamable HTTP both plug in here.

A transport delivers every incoming message to its sink, already classified (jsonrpc.py), and
tells the sink once when the stream is over and why. The session above never learns which
transport it talks to, so timeouts, caps and error strings are the same for all of them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from levelcode.core.errors import McpError, TransportError
from levelcode.mcp.protocol.jsonrpc import Incoming, RequestId


class MessageSink(Protocol):
    def on_message(self, message: Incoming) -> None: ...

    def on_closed(self, error: TransportError) -> None: ...

    def fail_request(self, request_id: RequestId, error: McpError) -> None:
        """One request failed on its own (a remote server's POST was refused); the rest go on."""


class Transport(Protocol):
    """One server's message stream.

    `send` never blocks and never waits for the server: a transport that needs I/O per message (an
    HTTP POST, which may answer 401, open a stream of its own, or find its session expired) hands
    it to a writer task of its own, and reports the outcome through the sink — a request that
    failed alone through `fail_request`, a stream that ended through `on_closed`. A 401/403 goes to
    the `AuthHook` it was given (which may reach the user) before the request is retried once.
    """

    @property
    def server(self) -> str: ...

    @property
    def process_id(self) -> int | None:
        """The server's local process (stdio), or None when it runs elsewhere."""

    @property
    def diagnostics_title(self) -> str:
        """What `diagnostics()` holds, as an error would introduce it ("last stderr lines")."""

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
    sent: str | None = field(default=None, repr=False)  # the Authorization the refused request carried
    dpop_nonce: str | None = None  # the server's DPoP-Nonce header (RFC 9449 §9), if it sent one
    peer: str | None = None  # the address the refusal came from, when known (a proxy's, through one)


# Given a refusal, returns headers to retry the request with once (after signing in, which may ask
# the user), or None to give up. Remote transports call it for a 401/403 on any request.
AuthHook = Callable[[AuthChallenge], Awaitable[Mapping[str, str] | None]]


class Authorizer(Protocol):
    """A remote server's sign-in, as its transport sees it (OAuth lives in mcp/http/oauth)."""

    async def current(self) -> Mapping[str, str] | None:
        """Headers for the next request (a stored token, renewed ahead of its expiry; {} for none),
        or None to keep those in use. Asked before every request, so it must be cheap."""

    def proof(self, method: str, url: str, sent: str | None) -> Mapping[str, str]:
        """Headers one request needs of its own (a DPoP proof for `method` `url` carrying the
        Authorization `sent`), or none."""

    async def challenged(self, challenge: AuthChallenge) -> Mapping[str, str] | None:
        """Headers to retry a refused request with once, or None to give up (the refusal stands).
        May raise AuthorizationRequired with its own reason (headless: which login to run)."""


class HookAuthorizer:
    """An `AuthHook` as an `Authorizer`: nothing stored, every refusal goes to the hook."""

    def __init__(self, hook: AuthHook) -> None:
        self.hook = hook

    async def current(self) -> Mapping[str, str] | None:
        return None

    def proof(self, method: str, url: str, sent: str | None) -> Mapping[str, str]:
        return {}

    async def challenged(self, challenge: AuthChallenge) -> Mapping[str, str] | None:
        return await self.hook(challenge)
