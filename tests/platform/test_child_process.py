"""`ChildProcess`, one contract for both backends: a child the running loop spawned (shell
commands) and a `Popen` spawned before the loop and joined to it (stdio servers), each under
asyncio's loop and uvloop, with real processes and signals. Load-bearing direction: what is
written reaches the child's stdin and its closing is its end; its stdout and stderr arrive apart;
its exit code, or the signal that killed it, is reported once, even while a grandchild still holds
its stdout; a signal reaches its whole group; it is reaped. The second corpus: a child with no
stdin pipe, or one whose stdin was closed, refuses a write with BrokenPipeError instead of
dropping it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.mcp.stdio.process import ServerProcess
from levelcode.mcp.stdio.reaper import WATCHDOG
from levelcode.mcp.stdio.spawn import spawn_server
from levelcode.platform.process_groups import wait_group_gone
from levelcode.platform.subprocess_pipes import AsyncioChild, ChildProcess, PipesProtocol

WAIT = 20.0
UPPER = (
    "import os, sys; print('pid', os.getpid(), flush=True); data = sys.stdin.buffer.read(); "
    "sys.stdout.buffer.write(data.upper()); sys.stderr.write('done'); sys.exit(3)"
)
# a grandchild in the child's group, holding its stdout; then the child waits, or exits at once
WITH_GRANDCHILD = "import subprocess, sys; subprocess.Popen(['sleep', '60']); print('ready', flush=True); "

Start = Callable[[list[str], PipesProtocol], Awaitable[ChildProcess]]


class Seen:
    """What the child's pipes delivered, with an event per pipe's end and for the exit."""

    def __init__(self) -> None:
        self.output: dict[int, bytes] = {1: b"", 2: b""}
        self.ended = {fd: asyncio.Event() for fd in (0, 1, 2)}
        self.exits: list[int] = []
        self.pipes = PipesProtocol(self._data, lambda fd: self.ended[fd].set(), self.exits.append)
        self.printed = asyncio.Event()

    def _data(self, fd: int, data: bytes) -> None:
        self.output[fd] += data
        self.printed.set()

    async def all_output(self) -> None:
        await asyncio.wait_for(asyncio.gather(self.ended[1].wait(), self.ended[2].wait()), WAIT)


@pytest.fixture(params=["spawned by the loop", "popen joined to the loop"])
async def start(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Start]:
    started: list[ChildProcess] = []

    async def by_the_loop(argv: list[str], pipes: PipesProtocol) -> ChildProcess:
        started.append(await AsyncioChild.spawn(argv, pipes, cwd=tmp_path, env=os.environ))
        return started[-1]

    async def joined(argv: list[str], pipes: PipesProtocol) -> ChildProcess:
        process = spawn_server(StdioLaunch("contract", tuple(argv), dict(os.environ), str(tmp_path)))
        started.append(await ServerProcess.attach(process, pipes))
        return started[-1]

    yield by_the_loop if request.param == "spawned by the loop" else joined
    for child in started:  # within the test's loop, which still runs
        child.signal_group(signal.SIGKILL)
        await child.wait(WAIT)
        child.close()
        WATCHDOG.unregister(child.pid)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


async def test_stdin_in_stdout_and_stderr_apart_and_the_exit_code_once(start: Start) -> None:
    seen = Seen()
    child = await start(python(UPPER), seen.pipes)
    assert not child.stdin_closing()
    child.write(b"hello ")
    child.write(b"world")
    child.close_stdin()
    assert await child.wait(WAIT)
    await seen.all_output()
    assert seen.output == {1: f"pid {child.pid}\n".encode() + b"HELLO WORLD", 2: b"done"}
    assert (child.returncode, seen.exits) == (3, [3])
    assert child.stdin_closing()
    with pytest.raises(BrokenPipeError):
        child.write(b"too late")


async def test_its_exit_is_seen_while_a_grandchild_holds_its_stdout(start: Start) -> None:
    seen = Seen()
    child = await start(python(WITH_GRANDCHILD + "sys.exit(5)"), seen.pipes)
    assert await child.wait(WAIT)
    assert child.returncode == 5
    assert not seen.ended[1].is_set()  # the grandchild still has it
    assert child.signal_group(signal.SIGKILL)
    await seen.all_output()


async def test_a_signal_reaches_its_whole_group_and_it_is_reaped(start: Start) -> None:
    seen = Seen()
    child = await start(python(WITH_GRANDCHILD + "sys.stdin.read()"), seen.pipes)
    await asyncio.wait_for(seen.printed.wait(), WAIT)
    assert child.signal_group(signal.SIGTERM)
    assert await child.wait(WAIT)
    assert (child.returncode, seen.exits) == (-signal.SIGTERM, [-signal.SIGTERM])
    assert await wait_group_gone(child.pid, WAIT)  # the grandchild too
    child.close()
    with pytest.raises(ChildProcessError):  # reaped already: no zombie is left
        os.waitpid(child.pid, os.WNOHANG)


async def test_a_child_started_without_a_stdin_pipe_refuses_a_write(tmp_path: Path) -> None:
    seen = Seen()
    argv = python("print('x')")
    child = await AsyncioChild.spawn(
        argv, seen.pipes, cwd=tmp_path, env=os.environ, stdin=asyncio.subprocess.DEVNULL
    )
    try:
        assert child.stdin_closing()
        with pytest.raises(BrokenPipeError):
            child.write(b"lost")
        assert await child.wait(WAIT)
        assert child.returncode == 0
    finally:
        child.close()
