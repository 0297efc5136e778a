"""Streamable HTTP: every message a POST, answered with JSON or an event stream; both protocol eras.

2025-11-25 and earlier: `Mcp-Session-Id` from the `initialize` answer, `MCP-Protocol-Version` on
later requests, the server's GET stream for its own messages, DELETE on close, and a session the
server forgot (404) renewed once by replaying our `initialize`. 2026-07-28: no session, no GET
stream, the version from each request's `_meta`, `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` headers.
`send` stays synchronous (the session's contract): each message becomes its own POST task.
A refused POST fails that one request (`fail_request`); only `close` ends the connection.

Owns the connection: which POST each message becomes, its failure, the session's renewal, the GET
stream's start and stop, the legacy fallback. One POST and its answer are post_exchange.py's; the
event streams are read in events.py and legacy_sse.py. Never parses an HTTP answer itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Coroutine, Mapping

import httpx2

from levelcode.core.errors import McpError, ProtocolError, TransportError
from levelcode.mcp.http.endpoint import RemoteEndpoint
from levelcode.mcp.http.events import listen
from levelcode.mcp.http.legacy_sse import LegacySseChannel
from levelcode.mcp.http.post_exchange import AnsweredInError, LegacyRefusal, PostExchange, SessionExpired
from levelcode.mcp.http.request_headers import callable_tools
from levelcode.mcp.http.session_headers import SessionHeaders, protocol_of
from levelcode.mcp.http.stream_link import StreamLink
from levelcode.mcp.http.wire import exchange, make_client
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.jsonrpc import Incoming
from levelcode.mcp.protocol.transport import Authorizer, MessageSink

DELETE_SECONDS = 2.0


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
        # what the POSTs and the stream readers (post_exchange.py, events.py, legacy_sse.py) may use
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
        self._post_exchange = PostExchange(self.link, auth)  # one POST, its sign-in and its answer

    @property
    def server(self) -> str:
        return self.endpoint.server

    async def open(self, sink: MessageSink) -> None:
        self._sink = sink
        tls = self.endpoint.url.lower().startswith("https:")
        self._client = make_client(self.endpoint.connect_timeout, tls=tls)
        await self._post_exchange.current_auth()
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
        except AnsweredInError:
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
            await self._post_exchange.post(message, body)
        except SessionExpired:
            await self._renew(message, body)
        except LegacyRefusal:
            legacy = await self._open_legacy()
            await legacy.post(message, body, self.headers.credentials())

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
            await self._post_exchange.post(message, body)
        except SessionExpired:
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
            await self._post_exchange.post_once(replay, jsonrpc.encode(replay), answers.append)
            answer = next((a for a in answers if isinstance(a, jsonrpc.Response)), None)
            if answer is None or self.headers.session_id is None:
                raise ProtocolError("it did not accept a new session", server=self.server)
            version = answer.result.get("protocolVersion")
            self.headers.version = version if isinstance(version, str) else self.headers.version
            initialized = jsonrpc.notification("notifications/initialized")
            await self._post_exchange.post_once(initialized, jsonrpc.encode(initialized), self._receive)
        except (McpError, SessionExpired, LegacyRefusal, AnsweredInError) as exc:
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
