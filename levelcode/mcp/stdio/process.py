"""A spawned server (spawn.py) joined to the running event loop: `ServerProcess.attach` delivers
its pipes and its exit to a `PipesProtocol`, and the joined process is a `ChildProcess`
(platform/subprocess_pipes.py) like one the loop spawned, so the transport treats every server alike
— spawned before the loop existed (the early start) or by the transport itself, under asyncio's
loop or uvloop.

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
from typing import IO

from levelcode.platform.subprocess_pipes import ChildProcess, PipesProtocol


class _PipeEnd(asyncio.Protocol):
    def __init__(self, pipes: PipesProtocol, fd: int) -> None:
        self.pipes, self.fd = pipes, fd

    def data_received(self, data: bytes) -> None:
        self.pipes.pipe_data_received(self.fd, data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.pipes.pipe_connection_lost(self.fd, exc)


class ServerProcess(ChildProcess):
    """A `Popen` with its three pipes joined to the running loop."""

    def __init__(self, process: subprocess.Popen[bytes], pipes: PipesProtocol) -> None:
        self._process = process
        self._pipes = pipes
        self._stdin: asyncio.WriteTransport | None = None
        self._outputs: list[asyncio.ReadTransport] = []
        self._pidfd: int | None = None

    @classmethod
    async def attach(cls, process: subprocess.Popen[bytes], pipes: PipesProtocol) -> ServerProcess:
        """Join the process to the running loop; it may have exited already (its output and its
        exit are delivered all the same)."""
        joined = cls(process, pipes)
        loop = asyncio.get_running_loop()
        try:
            joined._stdin, _ = await loop.connect_write_pipe(lambda: _PipeEnd(pipes, 0), _pipe(process.stdin))
            for fd, pipe in ((1, process.stdout), (2, process.stderr)):
                output, _ = await loop.connect_read_pipe(functools.partial(_PipeEnd, pipes, fd), _pipe(pipe))
                joined._outputs.append(output)
        except BaseException:
            joined.close()  # the pipes joined so far; the caller ends the process
            raise
        joined._watch_exit(loop)
        return joined

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def pipes(self) -> PipesProtocol:
        return self._pipes

    @property
    def stdin(self) -> asyncio.WriteTransport | None:
        return self._stdin

    def close(self) -> None:
        """Close the pipes, never the process (its transport ends the whole group first)."""
        self.close_stdin()
        for output in self._outputs:
            output.close()
        with contextlib.suppress(RuntimeError):
            self._forget_pidfd(asyncio.get_running_loop())
        # its group is gone by now, but the pidfd's news may not have been read: reap it here
        self._process.poll()

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
        code = self._process.returncode
        self._pipes.child_exited(-1 if code is None else code)


def _pipe(pipe: IO[bytes] | None) -> IO[bytes]:
    if pipe is None:
        raise ValueError("a server is spawned with all three pipes")
    return pipe
