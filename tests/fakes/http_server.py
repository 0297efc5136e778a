"""A scripted HTTP/1.1 server on 127.0.0.1 for remote-transport tests: a test's handler decides
every answer (status, headers, a JSON body, or event-stream chunks that may break off), and every
request is recorded, so a test can assert what arrived — and that nothing did.

One request per connection (`Connection: close`), bodies by Content-Length; a streamed answer is
delimited by closing the connection, which HTTP/1.1 allows and which is how a drop looks too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes

    def json(self) -> dict[str, object]:
        loaded = json.loads(self.body)
        assert isinstance(loaded, dict)
        return loaded


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: list[bytes] | None = None  # an event stream: sent one by one, then the connection closes
    hold: asyncio.Event | None = None  # keep the stream open until this is set

    @classmethod
    def json(cls, payload: object, status: int = 200, **headers: str) -> Reply:
        return cls(status, {"Content-Type": "application/json", **headers}, json.dumps(payload).encode())

    @classmethod
    def events(cls, *events: str, hold: asyncio.Event | None = None, **headers: str) -> Reply:
        chunks = [event.encode() for event in events]
        return cls(200, {"Content-Type": "text/event-stream", **headers}, chunks=chunks, hold=hold)


Handler = Callable[[Request], Awaitable[Reply]]


def sse(payload: object | None = None, *, event_id: str | None = None, retry: int | None = None) -> str:
    """One event: `payload` as its data (none for a priming event), with an optional id and retry."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if retry is not None:
        lines.append(f"retry: {retry}")
    lines.append(f"data: {json.dumps(payload) if payload is not None else ''}")
    return "\n".join(lines) + "\n\n"


class ScriptedHttpServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self.arrived = asyncio.Event()  # set on every request; tests clear it and wait, bounded
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> ScriptedHttpServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        try:
            request = await _read_request(reader)
            if request is not None:
                self.requests.append(request)
                self.arrived.set()
                await _write_reply(writer, await self.handler(request))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._tasks.discard(task)  # type: ignore[arg-type]
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines or not lines[0]:
        return None
    method, path, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return Request(method, path, headers, body)


async def _write_reply(writer: asyncio.StreamWriter, reply: Reply) -> None:
    head = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}", "Connection: close"]
    head += [f"{name}: {value}" for name, value in reply.headers.items()]
    if reply.chunks is None:
        head.append(f"Content-Length: {len(reply.body)}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    if reply.chunks is None:
        writer.write(reply.body)
    else:
        for chunk in reply.chunks:
            writer.write(chunk)
            await writer.drain()
        if reply.hold is not None:
            await reply.hold.wait()
    await writer.drain()


_REASONS = {
    200: "OK",
    202: "Accepted",
    307: "Temporary Redirect",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    500: "Internal Server Error",
}
