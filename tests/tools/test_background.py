"""Background jobs: output since the last read, status and exit codes; and nothing a job started
survives stop_background_command or close_tool_context — checked by pid, grandchildren included.
Waits are on the job's own change event (wait_seconds), never on sleep."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.background import (
    UNREAD_LIMIT,
    job_table,
    read_background_output,
    start_background_command,
    stop_background_command,
)
from levelcode.tools.base import ToolContext
from levelcode.tools.registry import close_tool_context
from tests.tools.support import survivors

SPAWNS_GRANDCHILD = 'sleep 1000 & echo "pids $! $$"; sleep 1000'


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


async def _start(ctx: ToolContext, command: str) -> str:
    reply = await start_background_command(ctx, {"command": command})
    match = re.search(r"job (bg\d+)", reply)
    assert match, reply
    return match.group(1)


async def _read_until(ctx: ToolContext, job_id: str, needle: str) -> str:
    """Everything read until `needle` shows up; each read waits on the job's change event."""
    seen = ""
    async with asyncio.timeout(15):
        while needle not in seen:
            seen += await read_background_output(ctx, {"job_id": job_id, "wait_seconds": 10}) + "\n"
    return seen


def _pids(text: str) -> tuple[int, int]:
    match = re.search(r"pids (\d+) (\d+)", text)
    assert match, text
    return int(match.group(1)), int(match.group(2))


async def test_output_status_and_exit_code(ctx: ToolContext) -> None:
    job_id = await _start(ctx, "echo first; echo second >&2; exit 3")
    seen = await _read_until(ctx, job_id, "exited")
    assert re.search(r"first\n(\[job .*\]\n)?second", seen), seen  # one read, or two
    assert f"[job {job_id}: exited (exit code 3)]" in seen
    assert await read_background_output(ctx, {"job_id": job_id}) == (
        f"[job {job_id}: exited (exit code 3)]\n(no new output)"
    )
    await close_tool_context(ctx)


async def test_reads_return_only_new_output(ctx: ToolContext, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "go")
    job_id = await _start(ctx, "echo one; read -t 60 line < go; echo two")
    assert "one" in await _read_until(ctx, job_id, "one")
    fd = os.open(tmp_path / "go", os.O_RDWR)  # never blocks, and keeps the line until it is read
    try:
        os.write(fd, b"go\n")
        seen = await _read_until(ctx, job_id, "two")
    finally:
        os.close(fd)
    assert "one" not in seen
    await close_tool_context(ctx)


async def test_unread_output_is_bounded(ctx: ToolContext) -> None:
    job_id = await _start(ctx, f"head -c {UNREAD_LIMIT * 2} /dev/zero | tr '\\0' x; echo; echo done")
    async with asyncio.timeout(15):
        while job_table(ctx).jobs[job_id].running:
            await job_table(ctx).jobs[job_id].output.changed.wait()
            job_table(ctx).jobs[job_id].output.changed.clear()
    text = await read_background_output(ctx, {"job_id": job_id})
    assert "bytes of earlier output were dropped unread" in text
    assert text.rstrip().endswith("done")
    assert len(text) < UNREAD_LIMIT + 500
    await close_tool_context(ctx)


async def test_stop_ends_the_whole_group(ctx: ToolContext) -> None:
    job_id = await _start(ctx, SPAWNS_GRANDCHILD)
    grandchild, shell = _pids(await _read_until(ctx, job_id, "pids"))
    reply = await asyncio.wait_for(stop_background_command(ctx, {"job_id": job_id}), 15)
    assert reply.startswith(f"[job {job_id} stopped: exited (killed by SIGTERM)]")
    assert survivors([grandchild, shell], pgid=shell) == []
    assert job_id not in job_table(ctx).jobs


async def test_close_tool_context_reaps_every_job(ctx: ToolContext) -> None:
    jobs = [await _start(ctx, SPAWNS_GRANDCHILD) for _ in range(3)]
    pids = [_pids(await _read_until(ctx, job_id, "pids")) for job_id in jobs]
    await asyncio.wait_for(close_tool_context(ctx), 15)
    for grandchild, shell in pids:
        assert survivors([grandchild, shell], pgid=shell) == []
    assert ctx.state == {}


async def test_close_tool_context_also_stops_jobs_ignoring_sigterm(ctx: ToolContext) -> None:
    job_id = await _start(ctx, "trap '' TERM; " + SPAWNS_GRANDCHILD)
    grandchild, shell = _pids(await _read_until(ctx, job_id, "pids"))
    await asyncio.wait_for(close_tool_context(ctx), 15)
    assert survivors([grandchild, shell], pgid=shell) == []


async def test_unknown_jobs_are_named(ctx: ToolContext) -> None:
    job_id = await _start(ctx, "true")
    with pytest.raises(ToolError, match=f"no background job 'bg9' \\(jobs: {job_id}\\)"):
        await read_background_output(ctx, {"job_id": "bg9"})
    with pytest.raises(ToolError, match="no background job"):
        await stop_background_command(ctx, {"job_id": "bg9"})
    await close_tool_context(ctx)


async def test_close_on_an_empty_session_is_fine(ctx: ToolContext) -> None:
    await close_tool_context(ctx)
    await close_tool_context(ctx)
