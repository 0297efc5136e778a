"""A spawned server (spawn.py) joined to the running event loop: `ServerProcess.attach` delivers
its pipes and its exit to a `PipesProtocol`, as asyncio's own subprocess transport would, so the
transport treats every server alike — spawned before the loop existed (the early start) or by the
transport itself, under asyncio's loop or uvloop.

The exit is seen through a pidfd (Linux 5.3+), else by a thread waiting on the process; either way
the process is reaped here, once. Never spawns, and never ends the process: closing ends the
pipes (the transport ends the whole group first).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import subprocess
from typing import IO, Any, cast

from levelcode.platform.subprocess_pipes import PipesProtocol


class _PipeEnd(asyncio.Protocol):
    def __init__(self, protocol: PipesProtocol, fd: int) -> None:
        self.protocol, self.fd = protocol, fd

    def data_received(self, data: bytes) -> None:
        self.protocol.pipe_data_received(self.fd, data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.pipe_connection_lost(self.fd, exc)


class ServerProcess:
    """The part of `asyncio.SubprocessTransport` the stdio transport uses, over a `Popen`."""

    def __init__(self, process: subprocess.Popen[bytes], protocol: PipesProtocol) -> None:
        self._process = process
        self._protocol = protocol
        self._pipes: dict[int, asyncio.BaseTransport] = {}
        self._pidfd: int | None = None
        self._returncode: int | None = None

    @classmethod
    async def attach(cls, process: subprocess.Popen[bytes], protocol: PipesProtocol) -> ServerProcess:
        """Join the process to the running loop; it may have exited already (its output and its
        exit are delivered all the same)."""
        joined = cls(process, protocol)
        protocol.connection_made(cast(asyncio.BaseTransport, joined))
        loop = asyncio.get_running_loop()
        try:
            stdin, _ = await loop.connect_write_pipe(lambda: _PipeEnd(protocol, 0), _pipe(process.stdin))
            joined._pipes[0] = stdin
            for fd, pipe in ((1, process.stdout), (2, process.stderr)):
                transport, _ = await loop.connect_read_pipe(
                    functools.partial(_PipeEnd, protocol, fd), _pipe(pipe)
                )
                joined._pipes[fd] = transport
        except BaseException:
            joined.close()  # the pipes joined so far; the caller ends the process
            raise
        joined._watch_exit(loop)
        return joined

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
        """Close the pipes, never the process (its transport ends the whole group first)."""
        for transport in self._pipes.values():
            transport.close()
        with contextlib.suppress(RuntimeError):
            self._forget_pidfd(asyncio.get_running_loop())
        # its group is gone by now, but the pidfd's news may not have been read: reap it here
        self._process.poll()


def _pipe(pipe: IO[bytes] | None) -> IO[bytes]:
    if pipe is None:
        raise ValueError("a server is spawned with all three pipes")
    return pipe
