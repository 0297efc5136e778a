"""The model's commands and the sandbox beyond single refusals. Load-bearing directions: nothing a
confined command starts outlives a timeout, a Ctrl-C, its own exit or a stopped background job —
not even a process that left the group with setsid; a run outside the sandbox happens only when a
person says yes on a card that warns about it (never headless, never "always"). The second
corpus: the person's yes really runs it outside, once; a command that succeeded is never offered
a re-run (a git commit among them); a background job that the sandbox blocked says why once it
has exited. And a git repository a confined command plants leaves the workspace however the
command ends — timeout, Ctrl-C, a background job while it runs or when it is stopped — and the
user is told."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.core.approvals import HeadlessApprover
from levelcode.core.errors import ToolError
from levelcode.sandbox.diagnosis import GIT_READ_ONLY, NETWORK_OFF, WRITE_REFUSED
from levelcode.tools.background import (
    read_background_output,
    start_background_command,
    stop_background_command,
)
from levelcode.tools.base import ToolContext
from levelcode.tools.registry import close_tool_context
from levelcode.tools.run_command import run_command
from tests.support.approvers import ScriptedApprover
from tests.support.sandbox import host_folder, real_confinement
from tests.tools.support import make_fifo, read_fifo_line, running_after, until_running

pytestmark = pytest.mark.sandbox


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


@pytest.fixture
def token() -> str:
    """A sleep length no other process uses: how the test finds what the command started."""
    return f"1000.{uuid.uuid4().int % 10**9}"


def _ctx(workspace: Path, approver: object = None) -> ToolContext:
    return ToolContext(workspace, sandbox=real_confinement(), approver=approver)  # type: ignore[arg-type]


# --- nothing outlives the command -----------------------------------------------------------------


async def test_a_timeout_ends_everything_even_a_setsid_daemon(tmp_path: Path, token: str) -> None:
    command = f"sleep {token} & setsid sleep {token} & echo started; sleep {token}"
    with pytest.raises(ToolError, match="timed out after 1 s"):
        await asyncio.wait_for(run_command(_ctx(tmp_path), {"command": command, "timeout_seconds": 1}), 15)
    assert running_after(token) == []


async def test_a_cancellation_ends_everything(tmp_path: Path, token: str) -> None:
    fifo = make_fifo(tmp_path)
    command = f"sleep {token} & echo started > {fifo.name}; sleep {token}"
    task = asyncio.create_task(run_command(_ctx(tmp_path), {"command": command}))
    assert await read_fifo_line(fifo) == "started"
    assert len(await until_running(token, 2)) == 2
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 15)
    assert running_after(token) == []


async def test_what_a_command_leaves_behind_ends_when_it_exits(tmp_path: Path, token: str) -> None:
    result = await asyncio.wait_for(
        run_command(_ctx(tmp_path), {"command": f"setsid sleep {token} & true"}), 15
    )
    assert result.endswith("[exit code 0]")
    assert running_after(token) == []


async def test_background_jobs_end_on_stop_and_on_close(tmp_path: Path, token: str) -> None:
    ctx = _ctx(tmp_path)
    for _ in range(2):
        await start_background_command(ctx, {"command": f"setsid sleep {token} & sleep {token}"})
    await until_running(token, 4)
    await asyncio.wait_for(stop_background_command(ctx, {"job_id": "bg1"}), 15)
    assert len(running_after(token, expected=2)) == 2  # bg2's two are left
    await asyncio.wait_for(close_tool_context(ctx), 15)
    assert running_after(token) == []


# --- one run outside the sandbox, only when a person allows it ------------------------------------


async def test_a_person_may_allow_one_run_outside(tmp_path: Path, outside: Path) -> None:
    marker = outside / "marker"
    approver = ScriptedApprover("once")
    result = await run_command(_ctx(tmp_path, approver), {"command": f"touch {marker}"})
    assert marker.exists()
    assert WRITE_REFUSED in result
    assert "[the user allowed one run outside the sandbox; it gave:]" in result
    (card,) = approver.asked
    assert card.kind == "command"
    assert card.title == "Run again outside the sandbox"
    assert card.body == (f"touch {marker}",)
    assert card.allow_always is False
    assert card.warning is not None
    assert card.warning.startswith("Runs OUTSIDE the sandbox")
    assert "writes outside the workspace" in card.warning


async def test_a_denied_rerun_leaves_it_blocked(tmp_path: Path, outside: Path) -> None:
    marker = outside / "marker"
    approver = ScriptedApprover("always")  # "always" is not offered: it counts as once …
    approver.answers = ["deny"]  # … and here the person says no
    result = await run_command(_ctx(tmp_path, approver), {"command": f"touch {marker}"})
    assert not marker.exists()
    assert result.endswith("[the user did not allow a run outside the sandbox]")


@pytest.mark.parametrize("approver", [None, HeadlessApprover()], ids=["nobody", "headless"])
async def test_headless_never_runs_outside(tmp_path: Path, outside: Path, approver: object) -> None:
    marker = outside / "marker"
    result = await run_command(_ctx(tmp_path, approver), {"command": f"touch {marker}"})
    assert not marker.exists()
    assert result.endswith(WRITE_REFUSED)


async def test_a_command_that_worked_is_never_offered_a_rerun(tmp_path: Path) -> None:
    approver = ScriptedApprover()
    result = await run_command(_ctx(tmp_path, approver), {"command": "echo fine > out.txt; cat out.txt"})
    assert result == "fine\n[exit code 0]"
    assert approver.asked == []


async def test_a_background_job_the_sandbox_blocked_says_why_once(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    await start_background_command(ctx, {"command": "curl -sS --max-time 5 http://127.0.0.1:9/"})
    seen = ""
    async with asyncio.timeout(15):
        while "exited" not in seen:
            seen += await read_background_output(ctx, {"job_id": "bg1", "wait_seconds": 5})
    assert NETWORK_OFF in seen
    again = await read_background_output(ctx, {"job_id": "bg1"})
    assert NETWORK_OFF not in again
    await close_tool_context(ctx)


# --- what a confined command plants for git leaves the workspace, however it ends -----------------

# A repository whose config runs something (a bare `git init` may stay: git_new_dirs.py).
PLANT = "git init -q sub && git -C sub config core.fsmonitor 'touch /x' && echo planted"


def _told(ctx: ToolContext) -> list[str]:
    told: list[str] = []
    ctx.notify = told.append
    return told


async def test_a_timeout_still_moves_what_it_planted(tmp_path: Path, token: str) -> None:
    ctx = _ctx(tmp_path)
    told = _told(ctx)
    with pytest.raises(ToolError, match="timed out") as failed:
        await run_command(ctx, {"command": f"{PLANT}; sleep {token}", "timeout_seconds": 1})
    assert not (tmp_path / "sub" / ".git").exists()
    assert "[sandbox] moved sub/.git " in str(failed.value)
    assert any("[sandbox] moved sub/.git " in text for text in told)  # the user is told too


async def test_a_cancellation_still_moves_what_it_planted(tmp_path: Path, token: str) -> None:
    fifo = make_fifo(tmp_path)
    ctx = _ctx(tmp_path)
    told = _told(ctx)
    task = asyncio.create_task(run_command(ctx, {"command": f"{PLANT} > {fifo.name}; sleep {token}"}))
    assert await read_fifo_line(fifo) == "planted"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 15)
    assert not (tmp_path / "sub" / ".git").exists()
    assert any("[sandbox] moved sub/.git " in text for text in told)


async def test_a_background_job_s_plant_is_moved_while_it_runs(tmp_path: Path, token: str) -> None:
    ctx = _ctx(tmp_path)
    told = _told(ctx)
    await start_background_command(ctx, {"command": f"{PLANT}; sleep {token}"})
    seen = ""
    async with asyncio.timeout(20):  # the watcher looks every few seconds
        while "[sandbox] moved sub/.git " not in seen:
            seen += await read_background_output(ctx, {"job_id": "bg1", "wait_seconds": 5})
    assert "running" in seen  # moved while the job still ran, not only when it ended
    assert not (tmp_path / "sub" / ".git").exists()
    assert any(text.startswith("[background job bg1]") for text in told)
    await close_tool_context(ctx)


async def test_a_stopped_background_job_s_last_plant_is_moved(tmp_path: Path, token: str) -> None:
    fifo = make_fifo(tmp_path)
    ctx = _ctx(tmp_path)
    await start_background_command(ctx, {"command": f"echo started > {fifo.name}; sleep {token}"})
    assert await read_fifo_line(fifo) == "started"
    (tmp_path / "late").mkdir()  # planted just before the stop, after the watcher's last look:
    subprocess.run(["git", "init", "-q", str(tmp_path / "late")], check=True)  # the last check finds it
    subprocess.run(["git", "-C", str(tmp_path / "late"), "config", "core.fsmonitor", "touch /x"], check=True)
    stopped = await asyncio.wait_for(stop_background_command(ctx, {"job_id": "bg1"}), 30)
    assert "[sandbox] moved late/.git " in stopped
    assert not (tmp_path / "late" / ".git").exists()


async def test_a_git_commit_works_confined_and_asks_for_no_run_outside(tmp_path: Path) -> None:
    """One card (the command's own, decided elsewhere), not two: nothing was blocked."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    approver = ScriptedApprover("deny")
    command = "git -c user.name=a -c user.email=a@a commit -q --allow-empty -m x && git log --format=%s"
    result = await run_command(_ctx(tmp_path, approver), {"command": command})
    assert result.endswith("x\n[exit code 0]"), result
    assert approver.asked == []


async def test_a_rerun_card_after_a_git_config_write_says_what_stays_read_only(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    approver = ScriptedApprover("deny")
    result = await run_command(_ctx(tmp_path, approver), {"command": "git config core.pager less"})
    assert GIT_READ_ONLY in result
    (card,) = approver.asked
    assert card.warning is not None
    assert "what decides what git runs stays read-only" in card.warning
    assert "outside the sandbox" in card.warning
