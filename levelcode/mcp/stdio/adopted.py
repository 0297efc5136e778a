"""A server process spawned before the event loop ran (early.py), joined to the loop: its pipes
and its exit delivered to a `PipesProtocol` just as asyncio's own subprocess transport delivers
them, so the stdio transport treats it like any process it spawned itself.

The exit is seen through a pidfd (Linux 5.3+), else by a thread waiting on the process; either
way the process is reaped here, once. Closing ends the pipes, never the process (the transport
ends process groups itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import subprocess
from typing import IO, Any, cast

from levelcode.core.subprocess_pipes import PipesProtocol


class _PipeEnd(asyncio.Protocol):
    def __init__(self, protocol: PipesProtocol, fd: int) -> None:
        self.protocol, self.fd = protocol, fd

    def data_received(self, data: bytes) -> None:
        self.protocol.pipe_data_received(self.fd, data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.pipe_connection_lost(self.fd, exc)


class AdoptedProcess:
    """The part of `asyncio.SubprocessTransport` the stdio transport uses, over a `Popen`."""

    def __init__(self, process: subprocess.Popen[bytes], protocol: PipesProtocol) -> None:
        self._process = process
        self._protocol = protocol
        self._pipes: dict[int, asyncio.BaseTransport] = {}
        self._pidfd: int | None = None
        self._returncode: int | None = None

    @classmethod
    async def attach(cls, process: subprocess.Popen[bytes], protocol: PipesProtocol) -> AdoptedProcess:
        adopted = cls(process, protocol)
        protocol.connection_made(cast(asyncio.BaseTransport, adopted))
        loop = asyncio.get_running_loop()
        stdin, _ = await loop.connect_write_pipe(lambda: _PipeEnd(protocol, 0), _pipe(process.stdin))
        adopted._pipes[0] = stdin
        for fd, pipe in ((1, process.stdout), (2, process.stderr)):
            transport, _ = await loop.connect_read_pipe(
                functools.partial(_PipeEnd, protocol, fd), _pipe(pipe)
            )
            adopted._pipes[fd] = transport
        adopted._watch_exit(loop)
        return adopted

    def _watch_exit(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self._pidfd = os.pidfd_open(self._process.pid)
        except (AttributeError, OSError):  # no pidfd here: a thread waits instead
            future = loop.run_in_executor(None, self._process.wait)
            future.add_done_callback(lambda _f: self._exited())
            return
        loop.add_reader(self._pidfd, self._pidfd_ready, loop)

    def _pidfd_ready(self, loop: asyncio.AbstractEventLoop) -> None:
        self._forget_pidfd(loop)
        self._process.wait()  # it has exited: this reaps it without blocking
        self._exited()

    def _forget_pidfd(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._pidfd is not None:
            loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _exited(self) -> None:
        if self._returncode is None:
            self._returncode = self._process.returncode if self._process.returncode is not None else -1
            self._protocol.process_exited()

    def get_pid(self) -> int:
        return self._process.pid

    def get_returncode(self) -> int | None:
        return self._returncode

    def get_pipe_transport(self, fd: int) -> Any:
        return self._pipes.get(fd)

    def close(self) -> None:
        for transport in self._pipes.values():
            transport.close()
        with contextlib.suppress(RuntimeError):
            self._forget_pidfd(asyncio.get_running_loop())


def _pipe(pipe: IO[bytes] | None) -> IO[bytes]:
    if pipe is None:
        raise ValueError("an early server is spawned with all three pipes")
    return pipe
