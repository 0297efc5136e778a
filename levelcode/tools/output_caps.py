"""Bounding what a tool hands back: command output keeps its head and tail, the middle is cut.

Pure: byte and string bookkeeping only.
"""

from __future__ import annotations

import re

PURE = True

COMMAND_OUTPUT_LIMIT = 30_000  # bytes kept of one command's output (half head, half tail)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class HeadTailBuffer:
    """Keeps the first and the last `limit // 2` bytes of a stream and counts what fell between."""

    def __init__(self, limit: int = COMMAND_OUTPUT_LIMIT) -> None:
        self._head_limit = limit // 2
        self._tail_limit = limit - self._head_limit
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        if len(self._tail) > self._tail_limit:
            del self._tail[: len(self._tail) - self._tail_limit]

    @property
    def cut(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def render(self) -> str:
        if self.cut == 0:  # decode as one: a character may straddle the head/tail boundary
            return (self._head + self._tail).decode("utf-8", errors="replace")
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        note = f"\n[... {self.cut} bytes of output cut from the middle; {self.total} bytes in all ...]\n"
        return head + note + tail


def visible_control_chars(text: str) -> str:
    """`text` with control characters other than tab and newline shown as escapes, never raw."""
    return _CONTROL.sub(lambda match: repr(match.group())[1:-1], text)
