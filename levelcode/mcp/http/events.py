"""Event streams of a Streamable HTTP server: a request's answer stream, its resumption after a
drop (GET with `Last-Event-ID`, after the server's `retry` delay, a bounded number of times), and
the server's own GET stream for its requests and notifications (2025-11-25 and earlier).

Every message read goes to the receiver it is given (a request's, or the link's for the server's
own stream); nothing here answers the server or logs a body. Reaches its transport only through
the `StreamLink` it is handed.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import httpx2

from levelcode.core.errors import MessageTooLarge, TransportError
from levelcode.mcp.http.sse import Oversized, SseDecoder
from levelcode.mcp.http.stream_link import Deliver, StreamLink
from levelcode.mcp.http.wire import StreamDropped, exchange, stream_chunks
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.jsonrpc import Incoming

DEFAULT_RETRY_MS = 1000
MAX_RETRY_MS = 30_000  # a server's `retry` is honoured up to this
MAX_RESUME_ATTEMPTS = 3
MAX_LISTEN_FAILURES = 3


class Receiver:
    """One request's answer stream: hands on what arrives and notices the answer itself."""

    def __init__(self, link: StreamLink, request_id: str, deliver: Deliver) -> None:
        self.link = link
        self.request_id = request_id
        self.deliver = deliver
        self.answered = False
        self.decoder = SseDecoder(link.endpoint.max_message_bytes)

    def take(self, message: Incoming) -> None:
        if isinstance(message, jsonrpc.Malformed) and message.id is None:
            message = replace(message, id=self.request_id)  # on this stream, it can only be our answer
        if isinstance(message, jsonrpc.Response | jsonrpc.ErrorResponse | jsonrpc.Malformed):
            self.answered = self.answered or str(message.id) == self.request_id
        self.deliver(message)

    def oversized(self, head: bytes) -> None:
        found = jsonrpc.find_id(head)
        limit = self.link.endpoint.max_message_bytes
        if found is None or str(found) == self.request_id:
            raise MessageTooLarge(f"message larger than the {limit} byte limit", server=self.link.server)
        self.deliver(jsonrpc.Malformed(f"message larger than the {limit} byte limit", found))


async def read_events(link: StreamLink, response: httpx2.Response, receiver: Receiver) -> None:
    """Until the answer arrives or the stream ends (dropping counts as ending: it may be resumed)."""
    try:
        async for chunk in stream_chunks(response, server=link.server):
            for item in receiver.decoder.feed(chunk):
                if isinstance(item, Oversized):
                    receiver.oversized(item.head)
                elif item.event == "message":
                    receiver.take(jsonrpc.parse_line(item.data.encode("utf-8")))
                if receiver.answered:
                    return
    except StreamDropped:
        return


async def resume_request(link: StreamLink, receiver: Receiver) -> None:
    """The answer stream ended unanswered: resume it by GET from the last event id, or give up."""
    if receiver.decoder.last_event_id is None:
        raise TransportError("the server closed the answer stream without answering", server=link.server)
    for _attempt in range(MAX_RESUME_ATTEMPTS):
        await asyncio.sleep(_delay(receiver.decoder.retry_ms))
        headers = link.headers.for_stream(receiver.decoder.last_event_id)
        try:
            async with exchange(
                link.client(),
                "GET",
                link.endpoint.url,
                server=link.server,
                headers=headers,
            ) as response:
                link.note(f"GET (resume) → {response.status_code} {response.reason_phrase}")
                if response.status_code >= 400 or not _is_event_stream(response):
                    break
                await read_events(link, response, receiver)
        except StreamDropped:
            continue
        except TransportError as exc:
            link.note(f"GET (resume): {exc}")
            continue
        if receiver.answered:
            return
    raise TransportError(
        f"the server's answer stream broke off and could not be resumed (tried {MAX_RESUME_ATTEMPTS} times)",
        server=link.server,
    )


async def listen(link: StreamLink) -> None:
    """The server's own stream: reconnect after a drop (with `Last-Event-ID`), stop when it offers none."""
    decoder = SseDecoder(link.endpoint.max_message_bytes)
    failures = 0
    while failures < MAX_LISTEN_FAILURES and not link.closed():
        heard = False
        try:
            heard = await _listen_once(link, decoder)
        except _NoStream:
            return
        except TransportError as exc:
            link.note(f"GET stream: {exc}")
        failures = 0 if heard else failures + 1
        await asyncio.sleep(_delay(decoder.retry_ms))


class _NoStream(Exception):
    """The server offers no GET stream (405), or no longer knows the session."""


async def _listen_once(link: StreamLink, decoder: SseDecoder) -> bool:
    headers = link.headers.for_stream(decoder.last_event_id)
    heard = False
    async with exchange(
        link.client(), "GET", link.endpoint.url, server=link.server, headers=headers
    ) as response:
        link.note(f"GET stream → {response.status_code} {response.reason_phrase}")
        if response.status_code in (404, 405) or 300 <= response.status_code < 400:
            raise _NoStream
        if response.status_code >= 400 or not _is_event_stream(response):
            return False
        try:
            async for chunk in stream_chunks(response, server=link.server):
                for item in decoder.feed(chunk):
                    heard = True
                    if isinstance(item, Oversized):
                        link.note("GET stream: dropped a message over the size limit")
                    elif item.event == "message":
                        link.receive(jsonrpc.parse_line(item.data.encode("utf-8")))
                heard = heard or decoder.last_event_id is not None
        except StreamDropped:
            pass
    return heard


def _delay(retry_ms: int | None) -> float:
    return min(retry_ms if retry_ms is not None else DEFAULT_RETRY_MS, MAX_RETRY_MS) / 1000


def _is_event_stream(response: httpx2.Response) -> bool:
    return response.headers.get("content-type", "").partition(";")[0].strip().lower() == "text/event-stream"
