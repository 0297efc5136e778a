"""ShellProcess: exit seen even while a grandchild holds the output pipe, stop() safe to call on
a finished command, and signals described in words."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from levelcode.tools.process_group import ShellProcess, exit_description, group_alive
from tests.tools.support import survivors


async def test_exit_is_seen_while_a_grandchild_holds_the_pipe(tmp_path: Path) -> None:
    output: list[bytes] = []
    process = await ShellProcess.start("sleep 1000 & echo started", tmp_path, output.append)
    try:
        assert await process.wait(10)
        assert process.returncode == 0
        assert group_alive(process.pid)
    finally:
        await asyncio.wait_for(process.stop(), 10)
    assert b"".join(output) == b"started\n"
    assert not group_alive(process.pid)
    assert survivors([], pgid=process.pid) == []


async def test_stop_after_a_clean_exit_is_quick_and_harmless(tmp_path: Path) -> None:
    exited = asyncio.Event()
    process = await ShellProcess.start("exit 4", tmp_path, lambda _chunk: None, exited.set)
    await asyncio.wait_for(exited.wait(), 10)
    await asyncio.wait_for(process.stop(grace=30), 5)  # nothing left, so no grace is waited out
    await process.stop()
    assert process.returncode == 4


@pytest.mark.parametrize(
    ("code", "words"),
    [(0, "exit code 0"), (2, "exit code 2"), (-signal.SIGKILL, "killed by SIGKILL"), (None, "still running")],
)
def test_exit_descriptions(code: int | None, words: str) -> None:
    assert exit_description(code) == words
