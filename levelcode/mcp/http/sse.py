"""Server-sent events from an untrusted server, decoded from bytes with a hard size cap.

Pure: fed bytes, returns events; never reads a socket. A line or an event larger than the cap
becomes one `Oversized` marker (the rest of that event is skipped), so a server can never make
LevelCode buffer without bound. Tracks the last event id and the `retry` delay for resumption.
"""

from __future__ import annotations

from dataclasses import dataclass

PURE = True


@dataclass(frozen=True)
class Event:
    data: str
    event: str = "message"
    id: str | None = None


@dataclass(frozen=True)
class Oversized:
    """An event was dropped for passing the size cap; `head` is its first bytes (to find an id)."""

    head: bytes


class SseDecoder:
    def __init__(self, max_event_bytes: int) -> None:
        self.max_event_bytes = max_event_bytes
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None
        self._pending = b""
        self._data: list[bytes] = []
        self._size = 0
        self._event = ""
        self._event_id: str | None = None
        self._skipping = False
        self._after_cr = False

    def feed(self, chunk: bytes) -> list[Event | Oversized]:
        out: list[Event | Oversized] = []
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the \n of a \r\n split across two chunks
        self._after_cr = chunk.endswith(b"\r")
        lines = (self._pending + chunk).replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._line(line, out)
        if len(self._pending) + self._size > self.max_event_bytes and not self._skipping:
            self._overflow(out, self._pending)
            self._pending = b""
        elif self._skipping:
            self._pending = b""
        return out

    def _line(self, line: bytes, out: list[Event | Oversized]) -> None:
        if not line:
            self._dispatch(out)
            return
        if self._skipping or line.startswith(b":"):
            return
        name, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if name == b"data":
            self._size += len(value) + 1
            if self._size > self.max_event_bytes:
                self._overflow(out, b"".join(self._data) + value)
                return
            self._data.append(value)
        elif name == b"event":
            self._event = value.decode("utf-8", "replace")
        elif name == b"id" and b"\x00" not in value:
            self._event_id = value.decode("utf-8", "replace")
            self.last_event_id = self._event_id or None
        elif name == b"retry" and value.isdigit():
            self.retry_ms = int(value)

    def _overflow(self, out: list[Event | Oversized], head: bytes) -> None:
        out.append(Oversized(head[:4096]))
        self._skipping = True
        self._data, self._size = [], 0

    def _dispatch(self, out: list[Event | Oversized]) -> None:
        data = b"\n".join(self._data)
        if data and not self._skipping:  # a priming event (an id, no data) only moves the resume point
            out.append(Event(data.decode("utf-8", "replace"), self._event or "message", self._event_id))
        self._data, self._size, self._event, self._event_id = [], 0, "", None
        self._skipping = False
