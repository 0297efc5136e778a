"""Byte-level framing for stdio servers: newline-delimited messages with a hard size cap, and a
bounded record of the server's stderr: its first lines and its last.

Pure: fed bytes, returns lines; never reads a pipe. Memory stays bounded whatever the server
writes: an over-long line is never accumulated past the cap, its remainder is skipped up to the
next newline, and only its first bytes are kept (to find the request it answered).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from levelcode.mcp.protocol.limits import DEFAULT_MAX_MESSAGE_BYTES

PURE = True

OVERSIZE_HEAD_BYTES = 256
STDERR_LINES = 40
STDERR_FIRST_LINES = 10  # kept too: a Node error, a usage message, come first (exit_lines.py)
STDERR_LINE_CHARS = 400


@dataclass(frozen=True)
class Oversized:
    """A line that passed the cap: how many bytes it had when it was cut, and its first bytes."""

    size: int
    head: bytes


class LineSplitter:
    def __init__(self, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._skipping: Oversized | None = None  # inside an oversized line, discarding to its end

    def feed(self, data: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._keep(data[start:], out)
                return out
            if not self._buffer and self._skipping is None and end - start <= self.max_bytes:
                if data[start:end].strip():  # the common case: a whole line in one read, no copy
                    out.append(data[start:end])
                start = end + 1
                continue
            self._keep(data[start:end], out)
            if self._skipping is None:
                if self._buffer.strip():
                    out.append(bytes(self._buffer))
            else:
                self._skipping = None
            self._buffer.clear()
            start = end + 1

    def _keep(self, piece: bytes, out: list[bytes | Oversized]) -> None:
        if self._skipping is not None or not piece:
            return
        if len(self._buffer) + len(piece) <= self.max_bytes:
            self._buffer += piece
            return
        head = bytes((self._buffer + piece[:OVERSIZE_HEAD_BYTES])[:OVERSIZE_HEAD_BYTES])
        self._skipping = Oversized(len(self._buffer) + len(piece), head)
        self._buffer.clear()
        out.append(self._skipping)

    @property
    def buffered(self) -> int:
        return len(self._buffer)


class StderrRing:
    """The first and the last lines a server wrote to stderr, each cut to a readable length."""

    def __init__(self, lines: int = STDERR_LINES, line_chars: int = STDERR_LINE_CHARS) -> None:
        self._lines: deque[str] = deque(maxlen=lines)
        self._first: list[str] = []
        self._count = 0
        self._partial = ""
        self._line_chars = line_chars

    def feed(self, data: bytes) -> None:
        text = self._partial + data.decode("utf-8", "replace")
        *complete, self._partial = text.split("\n")
        self._partial = self._partial[-self._line_chars :]
        for line in complete:
            self.add(line)

    def add(self, line: str) -> None:
        line = line.rstrip("\r")
        if line.strip():
            line = line[: self._line_chars]
            self._lines.append(line)
            self._count += 1
            if len(self._first) < STDERR_FIRST_LINES:
                self._first.append(line)

    def tail(self, count: int = 10) -> tuple[str, ...]:
        lines = list(self._lines)
        if self._partial.strip():
            lines.append(self._partial)
        return tuple(lines[-count:])

    def kept(self) -> tuple[str, ...]:
        """Every line kept, in order, none twice: the first lines, then the last (a gap between
        them when the server wrote more than both hold)."""
        after_first = self._count - len(self._first)
        later = list(self._lines)[-after_first:] if after_first > 0 else []
        partial = [self._partial] if self._partial.strip() else []
        return (*self._first, *later, *partial)
