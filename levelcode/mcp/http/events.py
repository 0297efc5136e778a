"""Event streams of a Streamable HTTP server: a request's answer stream, its resumption after a
drop (GET with `Last-Event-ID`, after the server's `retry` delay, a bounded number of times), and
the server's own GET stream for its requests and notifications (2025-11-25 and earlier).

Every message read goes to the transport's receiver; nothing here answers the server or logs a body.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

import httpx2

from levelcode.core.errors import MessageTooLarge, TransportError
from levelcode.mcp.http.sse import Oversized, SseDecoder
from levelcode.mcp.http.wire import StreamDropped, exchange, stream_chunks
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.jsonrpc import Incoming

if TYPE_CHECKING:
    from levelcode.mcp.http.streamable import Deliver, StreamableHttpTransport

DEFAULT_RETRY_MS = 1000
MAX_RETRY_MS = 30_000  # a server's `retry` is honoured up to this
MAX_RESUME_ATTEMPTS = 3
MAX_LISTEN_FAILURES = 3


class Receiver:
    """One request's answer stream: hands on what arrives and notices the answer itself."""

    def __init__(self, transport: StreamableHttpTransport, request_id: str, deliver: Deliver) -> None:
        self.transport = transport
        self.request_id = request_id
        self.deliver = deliver
        self.answered = False
        self.decoder = SseDecoder(transport.endpoint.max_message_bytes)

    def take(self, message: Incoming) -> None:
        if isinstance(message, jsonrpc.Malformed) and message.id is None:
            message = replace(message, id=self.request_id)  # on this stream, it can only be our answer
        if isinstance(message, jsonrpc.Response | jsonrpc.ErrorResponse | jsonrpc.Malformed):
            self.answered = self.answered or str(message.id) == self.request_id
        self.deliver(message)

    def oversized(self, head: bytes) -> None:
        found = jsonrpc.find_id(head)
        limit = self.transport.endpoint.max_message_bytes
        if found is None or str(found) == self.request_id:
            raise MessageTooLarge(f"message larger than the {limit} byte limit", server=self.transport.server)
        self.deliver(jsonrpc.Malformed(f"message larger than the {limit} byte limit", found))


async def read_events(
    transport: StreamableHttpTransport, response: httpx2.Response, receiver: Receiver
) -> None:
    """Until the answer arrives or the stream ends (dropping counts as ending: it may be resumed)."""
    try:
        async for chunk in stream_chunks(response, server=transport.server):
            for item in receiver.decoder.feed(chunk):
                if isinstance(item, Oversized):
                    receiver.oversized(item.head)
                elif item.event == "message":
                    receiver.take(jsonrpc.parse_line(item.data.encode("utf-8")))
                if receiver.answered:
                    return
    except StreamDropped:
        return


async def resume_request(transport: StreamableHttpTransport, receiver: Receiver) -> None:
    """The answer stream ended unanswered: resume it by GET from the last event id, or give up."""
    if receiver.decoder.last_event_id is None:
        raise TransportError("the server closed the answer stream without answering", server=transport.server)
    for _attempt in range(MAX_RESUME_ATTEMPTS):
        await asyncio.sleep(_delay(receiver.decoder.retry_ms))
        headers = transport.headers.for_stream(receiver.decoder.last_event_id)
        try:
            async with exchange(
                transport._require_client(),
                "GET",
                transport.endpoint.url,
                server=transport.server,
                headers=headers,
            ) as response:
                transport.note(f"GET (resume) → {response.status_code} {response.reason_phrase}")
                if response.status_code >= 400 or not _is_event_stream(response):
                    break
                await read_events(transport, response, receiver)
        except StreamDropped:
            continue
        except TransportError as exc:
            transport.note(f"GET (resume): {exc}")
            continue
        if receiver.answered:
            return
    raise TransportError(
        f"the server's answer stream broke off and could not be resumed (tried {MAX_RESUME_ATTEMPTS} times)",
        server=transport.server,
    )


async def listen(transport: StreamableHttpTransport) -> None:
    """The server's own stream: reconnect after a drop (with `Last-Event-ID`), stop when it offers none."""
    decoder = SseDecoder(transport.endpoint.max_message_bytes)
    failures = 0
    while failures < MAX_LISTEN_FAILURES and not transport.closed:
        heard = False
        try:
            heard = await _listen_once(transport, decoder)
        except _NoStream:
            return
        except TransportError as exc:
            transport.note(f"GET stream: {exc}")
        failures = 0 if heard else failures + 1
        await asyncio.sleep(_delay(decoder.retry_ms))


class _NoStream(Exception):
    """The server offers no GET stream (405), or no longer knows the session."""


async def _listen_once(transport: StreamableHttpTransport, decoder: SseDecoder) -> bool:
    headers = transport.headers.for_stream(decoder.last_event_id)
    heard = False
    async with exchange(
        transport._require_client(), "GET", transport.endpoint.url, server=transport.server, headers=headers
    ) as response:
        transport.note(f"GET stream → {response.status_code} {response.reason_phrase}")
        if response.status_code in (404, 405) or 300 <= response.status_code < 400:
            raise _NoStream
        if response.status_code >= 400 or not _is_event_stream(response):
            return False
        try:
            async for chunk in stream_chunks(response, server=transport.server):
                for item in decoder.feed(chunk):
                    heard = True
                    if isinstance(item, Oversized):
                        transport.note("GET stream: dropped a message over the size limit")
                    elif item.event == "message":
                        transport._receive(jsonrpc.parse_line(item.data.encode("utf-8")))
                heard = heard or decoder.last_event_id is not None
        except StreamDropped:
            pass
    return heard


def _delay(retry_ms: int | None) -> float:
    return min(retry_ms if retry_ms is not None else DEFAULT_RETRY_MS, MAX_RETRY_MS) / 1000


def _is_event_stream(response: httpx2.Response) -> bool:
    return response.headers.get("content-type", "").partition(";")[0].strip().lower() == "text/event-stream"
