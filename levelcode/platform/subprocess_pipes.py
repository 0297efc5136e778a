"""A child process as LevelCode uses it, whichever backend started it: `PipesProtocol` hands its
pipe data, pipe ends and exit to callbacks, and `ChildProcess` is what is done with it — write
and close its stdin, its pid and exit, a signal to its group, letting go of its pipes.

Two backends implement `ChildProcess`: `AsyncioChild` here (spawned by the running loop, asyncio's
or uvloop's: shell commands) and `ServerProcess` in mcp/stdio/process.py (a `Popen` spawned before
the loop, joined to it later: stdio servers). Neither passes itself off as asyncio's types. Exit
is observed here rather than through `Process.wait()`, which (on the Python versions we support)
may not return while a grandchild still holds an output pipe; `exited` is set when the child
itself ends, whatever its pipes do. Never decides what to run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from levelcode.platform.process_groups import signal_group

NO_STDIN = "the child's stdin is closed, or was never a pipe"


def _ignore_data(_fd: int, _data: bytes) -> None:
    return None


def _ignore_fd(_fd: int) -> None:
    return None


def _ignore_exit(_returncode: int) -> None:
    return None


@runtime_checkable
class _ReportsExit(Protocol):
    """What a subprocess transport tells of the exit. uvloop's transport has no asyncio base
    class, so it is recognised by this method, not by its class."""

    def get_returncode(self) -> int | None: ...


@runtime_checkable
class WritePipe(Protocol):
    """A child's stdin as a loop holds it (asyncio's pipe transport, uvloop's, by what they do)."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...

    def close(self) -> None: ...


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
        self._reporter: _ReportsExit | None = None
        self.returncode: int | None = None
        self.exited = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, _ReportsExit):
            self._reporter = transport

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self._on_data(fd, data.encode() if isinstance(data, str) else data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._on_pipe_closed(fd)

    def process_exited(self) -> None:
        code = self._reporter.get_returncode() if self._reporter is not None else None
        self.child_exited(-1 if code is None else code)

    def child_exited(self, returncode: int) -> None:
        """The child has exited with `returncode` (the first report counts; it is said once)."""
        if self.exited.is_set():
            return
        self.returncode = returncode
        self.exited.set()
        self._on_exit(returncode)


class ChildProcess(Protocol):
    """A running child in its own session — its pid is also its process group's id — whose
    output reaches the `PipesProtocol` it was started with."""

    @property
    def pid(self) -> int: ...

    @property
    def pipes(self) -> PipesProtocol: ...

    @property
    def stdin(self) -> WritePipe | None:
        """Its stdin as the loop holds it; None when it has none (or it is not joined yet)."""
        ...

    def close(self) -> None:
        """Let go of its pipes, and reap it if it has exited; never signals it."""
        ...

    def write(self, data: bytes) -> None:
        """Queue `data` for its stdin (never blocks); BrokenPipeError when it has no stdin pipe
        or it is closed — a write is refused, never dropped."""
        stdin = self.stdin
        if stdin is None or stdin.is_closing():
            raise BrokenPipeError(NO_STDIN)
        stdin.write(data)

    def stdin_closing(self) -> bool:
        """Whether its stdin is closed or closing (true when it has none)."""
        return self.stdin is None or self.stdin.is_closing()

    def close_stdin(self) -> None:
        """Close its stdin once what was written has gone (a child reading it sees its end)."""
        if self.stdin is not None:
            self.stdin.close()

    @property
    def returncode(self) -> int | None:
        """None until its exit has been seen."""
        return self.pipes.returncode

    @property
    def exited(self) -> asyncio.Event:
        return self.pipes.exited

    async def wait(self, seconds: float | None = None) -> bool:
        """Whether it exited within `seconds` (its own exit: its children may live on)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.exited.wait(), seconds)
        return self.exited.is_set()

    def signal_group(self, signum: int) -> bool:
        """`signum` to its whole group; False when nothing is left in it."""
        return signal_group(self.pid, signum)


class AsyncioChild(ChildProcess):
    """A child spawned by the running loop (`subprocess_exec`, asyncio's loop or uvloop)."""

    def __init__(self, transport: asyncio.SubprocessTransport, pipes: PipesProtocol) -> None:
        self._transport = transport
        self._pipes = pipes
        stdin = transport.get_pipe_transport(0)
        self._stdin: WritePipe | None = stdin if isinstance(stdin, WritePipe) else None  # None: not piped

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        pipes: PipesProtocol,
        *,
        cwd: Path,
        env: Mapping[str, str],
        stdin: int = asyncio.subprocess.PIPE,
        stderr: int = asyncio.subprocess.PIPE,
    ) -> AsyncioChild:
        """Start `argv` in a new session, its stdout piped (`stdin`, `stderr`: PIPE, DEVNULL or,
        for stderr, STDOUT). Raises OSError when it cannot be started."""
        loop = asyncio.get_running_loop()
        transport, _ = await loop.subprocess_exec(
            lambda: pipes,
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
        )
        return cls(transport, pipes)

    @property
    def pid(self) -> int:
        return self._transport.get_pid()

    @property
    def pipes(self) -> PipesProtocol:
        return self._pipes

    @property
    def stdin(self) -> WritePipe | None:
        return self._stdin

    def close(self) -> None:
        self._transport.close()
