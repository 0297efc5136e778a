"""Streamable HTTP: every message a POST, answered with JSON or an event stream; both protocol eras.

2025-11-25 and earlier: `Mcp-Session-Id` from the `initialize` answer, `MCP-Protocol-Version` on
later requests, the server's GET stream for its own messages, DELETE on close, and a session the
server forgot (404) renewed once by replaying our `initialize`. 2026-07-28: no session, no GET
stream, the version from each request's `_meta`, `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` headers.
`send` stays synchronous (the session's contract): each message becomes its own POST task.
A refused POST fails that one request (`fail_request`); only `close` ends the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Coroutine, Mapping

import httpx2

from levelcode.core.errors import AuthorizationRequired, McpError, ProtocolError, TransportError
from levelcode.mcp.http.endpoint import RemoteEndpoint
from levelcode.mcp.http.events import Receiver, listen, read_events, resume_request
from levelcode.mcp.http.legacy_sse import LegacySseChannel
from levelcode.mcp.http.origin import shown_url
from levelcode.mcp.http.request_headers import callable_tools
from levelcode.mcp.http.session_headers import SessionHeaders, protocol_of
from levelcode.mcp.http.stream_link import Deliver, StreamLink
from levelcode.mcp.http.wire import (
    authorization_refusal,
    content_type,
    exchange,
    make_client,
    peer_address,
    read_capped,
    redirect_refusal,
)
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.jsonrpc import Incoming
from levelcode.mcp.protocol.transport import AuthChallenge, Authorizer, MessageSink

DELETE_SECONDS = 2.0
_FALLBACK_STATUSES = frozenset({400, 404, 405})


class _Expired(Exception):
    """The server answered 404 to a request that carried our session id."""


class _Fallback(Exception):
    """`initialize` was refused the way a legacy HTTP+SSE server refuses it."""


class _Answered(Exception):
    """An error status carried a JSON-RPC error, already delivered as the answer."""


class StreamableHttpTransport:
    def __init__(self, endpoint: RemoteEndpoint, *, auth: Authorizer | None = None) -> None:
        self.endpoint = endpoint
        self.auth = auth
        self.status_lines: deque[str] = deque(maxlen=12)
        self._sink: MessageSink | None = None
        self._client: httpx2.AsyncClient | None = None
        self._closed: TransportError | None = None
        self._legacy: LegacySseChannel | None = None
        self.headers = SessionHeaders(
            endpoint.headers, endpoint.url, auth.proof if auth is not None else None
        )
        self._initialize: Mapping[str, object] | None = None
        self._generation = 0
        self._renewing = asyncio.Lock()
        self._methods: dict[str, str] = {}
        self._posts: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        # what the stream readers (events.py, legacy_sse.py) may use of this transport
        self.link = StreamLink(
            endpoint,
            self.headers,
            self._require_client,
            self._receive,
            self.note,
            self._spawn,
            self.fail,
            lambda: self.closed,
        )

    @property
    def server(self) -> str:
        return self.endpoint.server

    async def open(self, sink: MessageSink) -> None:
        self._sink = sink
        tls = self.endpoint.url.lower().startswith("https:")
        self._client = make_client(self.endpoint.connect_timeout, tls=tls)
        await self._current_auth()
        if self.endpoint.mode == "sse":
            await self._open_legacy()

    @property
    def process_id(self) -> int | None:
        return None

    @property
    def diagnostics_title(self) -> str:
        return "last HTTP exchanges"

    def diagnostics(self) -> tuple[str, ...]:
        return tuple(self.status_lines)

    def credentials_identity(self) -> str:
        """Which credentials the requests carry now, as a digest (never the secret itself): a
        "private" cached answer is served only to the same credentials."""
        import hashlib

        carried = sorted(self.headers.credentials().items())
        return hashlib.sha256(repr(carried).encode("utf-8", "surrogatepass")).hexdigest()

    def note(self, line: str) -> None:
        self.status_lines.append(line)

    # --- sending -------------------------------------------------------------------------------

    def send(self, message: Mapping[str, object]) -> None:
        if self._closed is not None:
            raise self._closed
        method, request_id = message.get("method"), message.get("id")
        if method == "notifications/cancelled" and self._abort(message) and self.headers.modern:
            return  # 2026-07-28: closing the request's stream is the cancellation
        if isinstance(method, str) and request_id is not None:
            self._methods[str(request_id)] = method
            if method == "initialize":
                self._initialize = dict(message)
        if isinstance(method, str) and request_id is not None:
            # each request says its era: a failed `server/discover` probe must not leave a legacy
            # session marked modern (it would never open the server's GET stream)
            self.headers.modern = protocol_of(message) is not None
        if method == "notifications/initialized" and self.headers.session_id and not self.headers.modern:
            self._listen()  # the server's own stream, opened as the session begins
        task = self._spawn(
            self._deliver(message, jsonrpc.encode(message))
        )  # encoded now: callers reuse dicts
        if isinstance(method, str) and request_id is not None:
            self._posts[str(request_id)] = task

    def _abort(self, message: Mapping[str, object]) -> bool:
        params = message.get("params")
        target = params.get("requestId") if isinstance(params, Mapping) else None
        task = self._posts.pop(str(target), None)
        if task is not None:
            task.cancel()
        return True

    async def _deliver(self, message: Mapping[str, object], body: bytes) -> None:
        request_id = message.get("id") if "method" in message else None
        try:
            await self._post(message, body)
        except _Answered:
            pass
        except McpError as exc:
            self._failed(message, request_id, exc)
        except Exception as exc:  # anything else must still end the request now, not at its timeout
            failure = TransportError(f"the request failed ({type(exc).__name__})", server=self.server)
            self._failed(message, request_id, failure)
        finally:
            if request_id is not None:
                self._posts.pop(str(request_id), None)
                self._methods.pop(str(request_id), None)

    def _failed(self, message: Mapping[str, object], request_id: object, error: McpError) -> None:
        if isinstance(request_id, int | str) and self._sink is not None:
            self._sink.fail_request(request_id, error)  # its own error says what happened
        else:
            self.note(f"{message.get('method', 'response')} not delivered: {error}")

    async def _post(self, message: Mapping[str, object], body: bytes) -> None:
        if self._legacy is not None:
            await self._legacy.post(message, body, self.headers.credentials())
            return
        try:
            await self._post_with_auth(message, body)
        except _Expired:
            await self._renew(message, body)
        except _Fallback:
            legacy = await self._open_legacy()
            await legacy.post(message, body, self.headers.credentials())

    async def _current_auth(self) -> None:
        """The sign-in's headers as of now (a token about to lapse is renewed first)."""
        if self.auth is None:
            return
        current = await self.auth.current()
        if current is not None:
            self.headers.auth.clear()
            self.headers.auth.update(current)

    async def _post_with_auth(self, message: Mapping[str, object], body: bytes) -> None:
        """A refused request is retried once with what the sign-in hands back, and once more when
        the second refusal only asks for the server's DPoP nonce (RFC 9449 §9)."""
        await self._current_auth()
        for attempt in range(3):
            sent = self.headers.auth.get("Authorization")  # what this request carries, before it is sent
            try:
                await self._post_once(message, body, self._receive)
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
            shown_url(self.endpoint.url),
            refused.status,
            refused.challenge,
            sent,
            refused.dpop_nonce,
            refused.peer,
        )
        headers = await self.auth.challenged(challenge)
        if headers is None:
            return False
        self.headers.auth.update(headers)
        return True

    async def _post_once(self, message: Mapping[str, object], body: bytes, deliver: Deliver) -> None:
        client = self._require_client()
        method = message.get("method")
        is_request = isinstance(method, str) and message.get("id") is not None
        sent_session = self.headers.session_id
        async with exchange(
            client,
            "POST",
            self.endpoint.url,
            server=self.server,
            headers=self.headers.for_post(message),
            body=body,
        ) as response:
            self._note_response("POST", method, response)
            await self._check_status(message, response, sent_session, deliver)
            if method == "initialize":
                self.headers.adopt_session(response.headers.get("mcp-session-id"))
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
            raise _Expired
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
            body = await read_capped(response, self.endpoint.max_message_bytes, server=self.server)
            parsed = jsonrpc.parse_line(body)
            if isinstance(parsed, jsonrpc.ErrorResponse) and _forgot_session(response, parsed, sent_session):
                raise _Expired
            if isinstance(parsed, jsonrpc.ErrorResponse):
                deliver(jsonrpc.ErrorResponse(request_id, parsed.code, parsed.message, parsed.data))
                raise _Answered
        legacy_refusal = response.status_code in _FALLBACK_STATUSES and self.endpoint.mode == "auto"
        if legacy_refusal and message.get("method") == "initialize":  # no JSON-RPC answer: HTTP+SSE?
            raise _Fallback
        reason = response.reason_phrase or "error"
        raise TransportError(
            f"HTTP {response.status_code} {reason} from {shown_url(self.endpoint.url)}", server=self.server
        )

    async def _read_answer(
        self, response: httpx2.Response, request_id: str, deliver: Deliver
    ) -> tuple[bool, Receiver]:
        kind = content_type(response)
        receiver = Receiver(self.link, request_id, deliver)
        if kind == "text/event-stream":
            await read_events(self.link, response, receiver)
        elif kind == "application/json":
            body = await read_capped(response, self.endpoint.max_message_bytes, server=self.server)
            receiver.take(jsonrpc.parse_line(body))
        elif response.status_code == 202:
            raise ProtocolError("the server accepted a request (202) but sent no answer", server=self.server)
        else:
            raise ProtocolError(
                f"the server answered with content type {kind or '(none)'!r}", server=self.server
            )
        return receiver.answered, receiver

    # --- what comes back -------------------------------------------------------------------------

    def _receive(self, message: Incoming) -> None:
        if isinstance(message, jsonrpc.Response):
            message = self._inspect(message)
        if self._sink is not None and self._closed is None:
            self._sink.on_message(message)

    def _inspect(self, message: jsonrpc.Response) -> jsonrpc.Response:
        method = self._methods.get(str(message.id))
        if method == "initialize":
            version = message.result.get("protocolVersion")
            self.headers.version = version if isinstance(version, str) else None
        elif method == "tools/list" and self.headers.modern:
            result, mirrored, left_out = callable_tools(message.result)
            self.headers.mirrored.update(mirrored)
            for name in left_out:
                self.note(f"left out tool {name[:80]!r}: its x-mcp-header marks are invalid")
            return jsonrpc.Response(message.id, result)
        return message

    # --- session renewal, the GET stream, the legacy fallback -------------------------------------

    async def _renew(self, message: Mapping[str, object], body: bytes) -> None:
        """The server forgot our session (expired, or restarted): start a new one once, then retry."""
        generation = self._generation
        async with self._renewing:
            if generation == self._generation:
                await self._reinitialize()
        try:
            await self._post_with_auth(message, body)
        except _Expired:
            raise TransportError(
                "the server ended the session again right after LevelCode started a new one",
                server=self.server,
            ) from None

    async def _reinitialize(self) -> None:
        if self._initialize is None:
            raise TransportError("the server ended the session before it began", server=self.server)
        self._stop_listening()
        self.headers.forget_session()
        self._generation += 1
        replay = {**self._initialize, "id": f"levelcode-renew-{self._generation}"}
        answers: list[Incoming] = []
        try:
            await self._post_once(replay, jsonrpc.encode(replay), answers.append)
            answer = next((a for a in answers if isinstance(a, jsonrpc.Response)), None)
            if answer is None or self.headers.session_id is None:
                raise ProtocolError("it did not accept a new session", server=self.server)
            version = answer.result.get("protocolVersion")
            self.headers.version = version if isinstance(version, str) else self.headers.version
            initialized = jsonrpc.notification("notifications/initialized")
            await self._post_once(initialized, jsonrpc.encode(initialized), self._receive)
        except (McpError, _Expired, _Fallback, _Answered) as exc:
            why = str(exc) or "it refused"
            raise TransportError(
                f"the server ended the session (HTTP 404) and starting a new one failed: {why}",
                server=self.server,
            ) from None
        self.note(f"the server ended the session; started a new one ({self._generation})")

    def _listen(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = self._spawn(listen(self.link))

    def _stop_listening(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None

    async def _open_legacy(self) -> LegacySseChannel:
        legacy = LegacySseChannel(self.link)
        await legacy.open(self.headers.credentials())
        self._legacy = legacy
        self.note("the server speaks the legacy HTTP+SSE transport (2024-11-05)")
        return legacy

    # --- plumbing ----------------------------------------------------------------------------------

    def _require_client(self) -> httpx2.AsyncClient:
        if self._client is None or self._closed is not None:
            raise self._closed or TransportError("the connection is not open", server=self.server)
        return self._client

    def _note_response(self, verb: str, method: object, response: httpx2.Response) -> None:
        what = f" {method}" if isinstance(method, str) else ""
        kind = content_type(response)
        self.note(
            f"{verb}{what} → {response.status_code} {response.reason_phrase}" + (f" ({kind})" if kind else "")
        )

    def _spawn(self, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.note(f"internal: {type(task.exception()).__name__}")

    def fail(self, error: TransportError) -> None:
        """The whole connection is unusable (a legacy event stream ended): every request fails."""
        if self._closed is None:
            self._closed = error
            if self._sink is not None:
                self._sink.on_closed(error)

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def close(self) -> None:
        self.fail(TransportError("the connection was closed", server=self.server))
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        client, self._client = self._client, None
        if client is None:
            return
        if self.headers.session_id is not None and self._legacy is None:
            with contextlib.suppress(McpError, TimeoutError):
                async with asyncio.timeout(DELETE_SECONDS):
                    headers = self.headers.for_delete()
                    async with exchange(
                        client, "DELETE", self.endpoint.url, server=self.server, headers=headers
                    ):
                        pass
        await client.aclose()


def _forgot_session(
    response: httpx2.Response, error: jsonrpc.ErrorResponse, sent_session: str | None
) -> bool:
    """The spec says 404 for a session the server no longer knows; servers built on some SDKs'
    examples say 400 "No valid session ID" instead. Both mean: start a new session."""
    return sent_session is not None and response.status_code == 400 and "session" in error.message.lower()
