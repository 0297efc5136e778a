"""Our JSON-RPC session over any transport: requests with bounded waits, cancellation, and the
server's own requests and notifications.

Every wait is bounded; a request ends in exactly one of: its result, a RemoteError (the server's
JSON-RPC error), a CallTimeout (after which the server is asked to cancel), a ProtocolError (its
answer was malformed), or the TransportError that ended the connection — raised at once when the
server dies, not at the timeout. The server's own requests go to pluggable async handlers, one
per method (`ClientFeatures.handlers`: roots, sampling, elicitation …, which may ask the user);
`ping` is answered here, and a method without a handler is "method not found". The defaults
answer `roots/list` with no roots and refuse sampling (DESIGN D3).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field

from levelcode.core.errors import (
    CallTimeout,
    McpError,
    MessageTooLarge,
    ProtocolError,
    RemoteError,
    TransportError,
)
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.deadline import CallDeadline
from levelcode.mcp.protocol.jsonrpc import Incoming, RequestId
from levelcode.mcp.protocol.result_cache import ResultCache, cache_key
from levelcode.mcp.protocol.transport import Transport

NotificationHandler = Callable[[jsonrpc.Notification], None]
# Answers one server request's params with its result, or raises RemoteError to refuse it.
ServerRequestHandler = Callable[[Mapping[str, object]], Awaitable[Mapping[str, object]]]
_NOTES = 20
INTERNAL_ERROR = -32603


async def no_roots(_params: Mapping[str, object]) -> Mapping[str, object]:
    return {"roots": []}


async def refuse_sampling(_params: Mapping[str, object]) -> Mapping[str, object]:
    raise RemoteError("LevelCode does not allow sampling", server="", code=jsonrpc.METHOD_NOT_FOUND)


DEFAULT_HANDLERS: Mapping[str, ServerRequestHandler] = {
    "roots/list": no_roots,
    "sampling/createMessage": refuse_sampling,
}


@dataclass(frozen=True)
class ClientFeatures:
    """What the client declares it can do (`capabilities`) and who answers each server request."""

    capabilities: Mapping[str, object] = field(default_factory=dict[str, object])
    handlers: Mapping[str, ServerRequestHandler] = field(default_factory=lambda: dict(DEFAULT_HANDLERS))


class McpSession:
    def __init__(
        self,
        transport: Transport,
        *,
        on_notification: NotificationHandler | None = None,
        features: ClientFeatures | None = None,
    ) -> None:
        self.transport = transport
        self.server = transport.server
        self.on_notification = on_notification
        self.features = features or ClientFeatures()
        self._answering: set[asyncio.Task[None]] = set()  # server requests being answered, work spawned
        self.envelope: Mapping[str, object] | None = None  # 2026-07-28: `_meta` sent with every request
        self.cache: ResultCache | None = None  # results the server lets us reuse (ttlMs/cacheScope)
        self.closed: TransportError | None = None
        self.notes: deque[str] = deque(maxlen=_NOTES)  # ignored garbage, for error reports
        self._pending: dict[RequestId, asyncio.Future[Mapping[str, object]]] = {}
        self._timers: dict[RequestId, asyncio.TimerHandle] = {}
        self._next_id = 0

    async def open(self) -> None:
        await self.transport.open(self)

    async def close(self) -> None:
        await self.transport.close()

    def diagnostics(self) -> tuple[str, ...]:
        return (*self.transport.diagnostics(), *self.notes)

    async def request(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        timeout: float | None,
        tool: str | None = None,
        deadline: CallDeadline | None = None,
        request_id: RequestId | None = None,
    ) -> Mapping[str, object]:
        """The result. `deadline`, when given, bounds the request instead of `timeout`: its idle
        limit moves whenever the caller touches it (the server's progress), its cap never. A
        cacheable request answered before, and still fresh by the server's hint, is not sent.
        `request_id`: one from `new_request_id`, for a caller that must know it."""
        key = cache_key(method, params) if self.cache is not None else None
        if key is not None and self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                return cached
        result = await self._exchange(method, params, timeout, tool, deadline=deadline, request_id=request_id)
        if key is not None and self.cache is not None:
            self.cache.put(key, result)
        return result

    async def _exchange(
        self,
        method: str,
        params: Mapping[str, object] | None,
        timeout: float | None,
        tool: str | None,
        *,
        deadline: CallDeadline | None,
        request_id: RequestId | None,
    ) -> Mapping[str, object]:
        if self.closed is not None:
            raise self.closed
        if request_id is None:
            request_id = self.new_request_id()
        future: asyncio.Future[Mapping[str, object]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        if deadline is None and timeout is not None:
            deadline = CallDeadline(timeout, timeout)
        if deadline is not None:
            self._watch(request_id, deadline, tool)
        try:
            self.transport.send(jsonrpc.request(request_id, method, self._with_envelope(params)))
            return await future
        except asyncio.CancelledError:
            self._cancel_remote(request_id, "the user aborted the request")
            raise
        finally:
            timer = self._timers.pop(request_id, None)
            if timer is not None:
                timer.cancel()
            self._pending.pop(request_id, None)

    def new_request_id(self) -> int:
        """A request's id, taken before it is sent: a server names a `subscriptions/listen`
        stream by its request's id, so whoever opens one must know it."""
        self._next_id += 1
        return self._next_id

    def spawn(self, work: Coroutine[object, object, None]) -> None:
        """Run `work` on its own, kept until it ends (a request sent while its caller leaves)."""
        task = asyncio.ensure_future(work)
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    def notify(self, method: str, params: Mapping[str, object] | None = None) -> None:
        self.transport.send(jsonrpc.notification(method, params))

    def _with_envelope(self, params: Mapping[str, object] | None) -> Mapping[str, object] | None:
        if self.envelope is None:
            return params
        merged = dict(params or {})
        meta = merged.get("_meta")
        merged["_meta"] = {**self.envelope, **(meta if isinstance(meta, Mapping) else {})}
        return merged

    def _watch(self, request_id: RequestId, deadline: CallDeadline, tool: str | None) -> None:
        """Look at the deadline when it is next due; a deadline moved since is looked at again then."""
        loop = asyncio.get_running_loop()
        self._timers[request_id] = loop.call_later(
            deadline.due_in(), self._expire, request_id, deadline, tool
        )

    def _expire(self, request_id: RequestId, deadline: CallDeadline, tool: str | None) -> None:
        future = self._pending.get(request_id)
        if future is None or future.done():
            return
        reason = deadline.expired()
        if reason is None:
            self._watch(request_id, deadline, tool)
            return
        what = f"tool {tool!r}" if tool else "the request"
        seconds = deadline.elapsed
        future.set_exception(CallTimeout(f"{what} {reason}", server=self.server, seconds=seconds, tool=tool))
        self._cancel_remote(request_id, reason)

    def _cancel_remote(self, request_id: RequestId, reason: str) -> None:
        if self.closed is None:
            with contextlib.suppress(McpError):
                self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    # --- MessageSink ---------------------------------------------------------------------------------

    def on_message(self, message: Incoming) -> None:
        if isinstance(message, jsonrpc.Response):
            self._settle(message.id, result=message.result)
        elif isinstance(message, jsonrpc.ErrorResponse):
            self._settle_error(message)
        elif isinstance(message, jsonrpc.Notification):
            if self.on_notification is not None:
                self.on_notification(message)
        elif isinstance(message, jsonrpc.Request):
            self._answer(message)
        else:
            self._malformed(message)

    def fail_request(self, request_id: RequestId, error: McpError) -> None:
        future = self._future(request_id)
        if future is not None:
            future.set_exception(error)

    def on_closed(self, error: TransportError) -> None:
        if self.closed is not None:
            return
        self.closed = error
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)

    def _future(self, request_id: RequestId | None) -> asyncio.Future[Mapping[str, object]] | None:
        if request_id is None:
            return None
        future = self._pending.get(request_id)
        if future is None and isinstance(request_id, str) and request_id.isdigit():
            future = self._pending.get(int(request_id))  # tolerate servers that stringify our ids
        return future if future is not None and not future.done() else None

    def _settle(self, request_id: RequestId, *, result: Mapping[str, object]) -> None:
        future = self._future(request_id)
        if future is not None:
            future.set_result(result)

    def _settle_error(self, message: jsonrpc.ErrorResponse) -> None:
        future = self._future(message.id)
        if future is None:
            self.notes.append(f"error from server without a pending request: {message.message[:200]}")
            return
        future.set_exception(
            RemoteError(message.message, server=self.server, code=message.code, data=message.data)
        )

    def _malformed(self, message: jsonrpc.Malformed) -> None:
        future = self._future(message.id)
        if message.fatal:
            error: McpError = MessageTooLarge(message.reason, server=self.server)
        else:
            error = ProtocolError(f"malformed message from the server: {message.reason}", server=self.server)
        if future is not None:
            future.set_exception(error)
        elif message.fatal and isinstance(error, TransportError):
            self.on_closed(error)  # a lost message we cannot attribute: nothing on this stream is reliable
        else:
            self.notes.append(f"ignored a message: {message.reason}")

    def capabilities(self) -> dict[str, object]:
        return dict(self.features.capabilities)

    def handles(self, method: str) -> bool:
        return method in self.features.handlers

    async def handle_server_request(self, method: str, params: Mapping[str, object]) -> Mapping[str, object]:
        """A server's request (or a 2026-07-28 input request), answered by its method's handler."""
        handler = self.features.handlers.get(method)
        if handler is None:
            raise RemoteError(f"unsupported: {method}", server=self.server, code=jsonrpc.METHOD_NOT_FOUND)
        return await handler(params)

    def _answer(self, message: jsonrpc.Request) -> None:
        if message.method == "ping":  # answered at once: a busy handler must not make us look dead
            with contextlib.suppress(McpError):
                self.transport.send(jsonrpc.result_response(message.id, {}))
            return
        self.spawn(self._answer_async(message))

    async def _answer_async(self, message: jsonrpc.Request) -> None:
        try:
            result = await self.handle_server_request(message.method, message.params)
            reply = jsonrpc.result_response(message.id, result)
        except RemoteError as exc:
            reply = jsonrpc.error_response(message.id, exc.code, str(exc))
        except McpError as exc:
            reply = jsonrpc.error_response(message.id, INTERNAL_ERROR, str(exc))
        with contextlib.suppress(McpError):
            self.transport.send(reply)
