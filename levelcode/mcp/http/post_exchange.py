"""One POST to a Streamable HTTP server and what answers it: the sign-in's headers (a refusal
retried with what the sign-in hands back), the status read, and the answer read as JSON or as an
event stream whose messages go to the deliverer it is given.

Decides nothing for the connection: a session the server forgot, a refusal the way a legacy
HTTP+SSE server refuses, and an error status already answered are raised for the transport
(streamable.py) to act on. Reaches the transport only through the `StreamLink` it is handed.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx2

from levelcode.core.errors import AuthorizationRequired, ProtocolError, TransportError
from levelcode.mcp.http.events import Receiver, read_events, resume_request
from levelcode.mcp.http.origin import shown_url
from levelcode.mcp.http.stream_link import Deliver, StreamLink
from levelcode.mcp.http.wire import (
    authorization_refusal,
    content_type,
    exchange,
    peer_address,
    read_capped,
    redirect_refusal,
)
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.transport import AuthChallenge, Authorizer

_FALLBACK_STATUSES = frozenset({400, 404, 405})


class SessionExpired(Exception):
    """The server no longer knows the session id our request carried (404, or a 400 saying so)."""


class LegacyRefusal(Exception):
    """`initialize` was refused the way a legacy HTTP+SSE server refuses it."""


class AnsweredInError(Exception):
    """An error status carried a JSON-RPC error, already delivered as the answer."""


class PostExchange:
    def __init__(self, link: StreamLink, auth: Authorizer | None) -> None:
        self.link = link
        self.auth = auth

    @property
    def server(self) -> str:
        return self.link.server

    async def current_auth(self) -> None:
        """The sign-in's headers as of now (a token about to lapse is renewed first)."""
        if self.auth is None:
            return
        current = await self.auth.current()
        if current is not None:
            self.link.headers.auth.clear()
            self.link.headers.auth.update(current)

    async def post(self, message: Mapping[str, object], body: bytes) -> None:
        """A refused request is retried once with what the sign-in hands back, and once more when
        the second refusal only asks for the server's DPoP nonce (RFC 9449 §9)."""
        await self.current_auth()
        for attempt in range(3):
            sent = self.link.headers.auth.get("Authorization")  # what this request carries, before it is sent
            try:
                await self.post_once(message, body, self.link.receive)
                return
            except AuthorizationRequired as refused:
                last = attempt == 2 or (attempt == 1 and refused.dpop_nonce is None)
                if last or not await self._authorize(refused, sent):
                    raise

    async def _authorize(self, refused: AuthorizationRequired, sent: str | None) -> bool:
        if self.auth is None:
            return False
        challenge = AuthChallenge(
            self.server,
            shown_url(self.link.endpoint.url),
            refused.status,
            refused.challenge,
            sent,
            refused.dpop_nonce,
            refused.peer,
        )
        headers = await self.auth.challenged(challenge)
        if headers is None:
            return False
        self.link.headers.auth.update(headers)
        return True

    async def post_once(self, message: Mapping[str, object], body: bytes, deliver: Deliver) -> None:
        client = self.link.client()
        method = message.get("method")
        is_request = isinstance(method, str) and message.get("id") is not None
        sent_session = self.link.headers.session_id
        async with exchange(
            client,
            "POST",
            self.link.endpoint.url,
            server=self.server,
            headers=self.link.headers.for_post(message),
            body=body,
        ) as response:
            self._note_response("POST", method, response)
            await self._check_status(message, response, sent_session, deliver)
            if method == "initialize":
                self.link.headers.adopt_session(response.headers.get("mcp-session-id"))
            if not is_request:
                return
            request_id = str(message.get("id"))
            answered, resume = await self._read_answer(response, request_id, deliver)
        if not answered:
            await resume_request(self.link, resume)

    async def _check_status(
        self,
        message: Mapping[str, object],
        response: httpx2.Response,
        sent_session: str | None,
        deliver: Deliver,
    ) -> None:
        code = response.status_code
        if code in (401, 403):
            raise authorization_refusal(
                self.server,
                code,
                response.headers.get("www-authenticate"),
                response.headers.get("dpop-nonce"),
                peer_address(response),
            )
        if code == 404 and sent_session is not None:
            raise SessionExpired
        refusal = redirect_refusal(response, server=self.server)
        if refusal is not None:
            raise refusal
        if code >= 400:
            await self._error_status(message, response, deliver, sent_session)

    async def _error_status(
        self,
        message: Mapping[str, object],
        response: httpx2.Response,
        deliver: Deliver,
        sent_session: str | None,
    ) -> None:
        """A JSON-RPC error in the body answers the request (e.g. an unsupported version); else fail it."""
        request_id = message.get("id")
        if content_type(response) == "application/json" and isinstance(request_id, int | str):
            body = await read_capped(response, self.link.endpoint.max_message_bytes, server=self.server)
            parsed = jsonrpc.parse_line(body)
            if isinstance(parsed, jsonrpc.ErrorResponse) and _forgot_session(response, parsed, sent_session):
                raise SessionExpired
            if isinstance(parsed, jsonrpc.ErrorResponse):
                deliver(jsonrpc.ErrorResponse(request_id, parsed.code, parsed.message, parsed.data))
                raise AnsweredInError
        legacy_refusal = response.status_code in _FALLBACK_STATUSES and self.link.endpoint.mode == "auto"
        if legacy_refusal and message.get("method") == "initialize":  # no JSON-RPC answer: HTTP+SSE?
            raise LegacyRefusal
        reason = response.reason_phrase or "error"
        raise TransportError(
            f"HTTP {response.status_code} {reason} from {shown_url(self.link.endpoint.url)}",
            server=self.server,
        )

    async def _read_answer(
        self, response: httpx2.Response, request_id: str, deliver: Deliver
    ) -> tuple[bool, Receiver]:
        kind = content_type(response)
        receiver = Receiver(self.link, request_id, deliver)
        if kind == "text/event-stream":
            await read_events(self.link, response, receiver)
        elif kind == "application/json":
            body = await read_capped(response, self.link.endpoint.max_message_bytes, server=self.server)
            receiver.take(jsonrpc.parse_line(body))
        elif response.status_code == 202:
            raise ProtocolError("the server accepted a request (202) but sent no answer", server=self.server)
        else:
            raise ProtocolError(
                f"the server answered with content type {kind or '(none)'!r}", server=self.server
            )
        return receiver.answered, receiver

    def _note_response(self, verb: str, method: object, response: httpx2.Response) -> None:
        what = f" {method}" if isinstance(method, str) else ""
        kind = content_type(response)
        self.link.note(
            f"{verb}{what} → {response.status_code} {response.reason_phrase}" + (f" ({kind})" if kind else "")
        )


def _forgot_session(
    response: httpx2.Response, error: jsonrpc.ErrorResponse, sent_session: str | None
) -> bool:
    """The spec says 404 for a session the server no longer knows; servers built on some SDKs'
    examples say 400 "No valid session ID" instead. Both mean: start a new session."""
    return sent_session is not None and response.status_code == 400 and "session" in error.message.lower()
