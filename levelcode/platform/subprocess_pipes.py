"""The one subprocess protocol: a child's pipe data, pipe ends and exit, handed to callbacks.

Shared by shell commands (tools) and stdio MCP servers. Exit is observed here rather than through
`Process.wait()`, which (on the Python versions we support) may not return while a grandchild
still holds an output pipe; `exited` is set when the child itself ends, whatever its pipes do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast


def _ignore_data(_fd: int, _data: bytes) -> None:
    return None


def _ignore_fd(_fd: int) -> None:
    return None


def _ignore_exit(_returncode: int) -> None:
    return None


class PipesProtocol(asyncio.SubprocessProtocol):
    """`on_data(fd, bytes)` for output, `on_pipe_closed(fd)` when a pipe ends, `on_exit(code)` once
    the child has exited (a negative code: killed by that signal; -1 when none was reported)."""

    def __init__(
        self,
        on_data: Callable[[int, bytes], None] = _ignore_data,
        on_pipe_closed: Callable[[int], None] = _ignore_fd,
        on_exit: Callable[[int], None] = _ignore_exit,
    ) -> None:
        self._on_data = on_data
        self._on_pipe_closed = on_pipe_closed
        self._on_exit = on_exit
        self._process: asyncio.SubprocessTransport | None = None
        self.exited = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._process = cast(asyncio.SubprocessTransport, transport)

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self._on_data(fd, data.encode() if isinstance(data, str) else data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._on_pipe_closed(fd)

    def process_exited(self) -> None:
        code = self._process.get_returncode() if self._process is not None else None
        self.exited.set()
        self._on_exit(code if code is not None else -1)
