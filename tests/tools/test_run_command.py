"""run_command: output, exit codes and caps; and, the part that must hold, nothing it starts
survives a timeout, a cancellation (the user's Ctrl-C) or the command's own exit — checked by pid
through /proc, grandchildren included."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.output_caps import COMMAND_OUTPUT_LIMIT
from levelcode.tools.run_command import run_command
from tests.tools.support import make_fifo, read_fifo_line, survivors

# A shell that starts a grandchild in the background, reports both pids, then blocks.
SPAWNS_GRANDCHILD = 'sleep 1000 & echo "pids $! $$" {sink}; sleep 1000'


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


def _pids(text: str) -> list[int]:
    match = re.search(r"pids (\d+) (\d+)", text)
    assert match, text
    return [int(match.group(1)), int(match.group(2))]


async def test_output_and_exit_code(ctx: ToolContext) -> None:
    output = await run_command(ctx, {"command": "echo out; echo err >&2; exit 3"})
    assert output == "out\nerr\n[exit code 3]"


async def test_it_runs_in_the_workspace_with_bash(ctx: ToolContext, tmp_path: Path) -> None:
    output = await run_command(ctx, {"command": 'pwd; echo "${BASH_VERSION:+bash}"'})
    assert output.splitlines()[:2] == [str(tmp_path), "bash"]


async def test_no_output_and_signals_are_reported(ctx: ToolContext) -> None:
    assert await run_command(ctx, {"command": "true"}) == "(no output)\n[exit code 0]"
    assert (await run_command(ctx, {"command": "kill -KILL $$"})).endswith("[killed by SIGKILL]")


async def test_stdin_is_closed(ctx: ToolContext) -> None:
    assert await run_command(ctx, {"command": "cat; echo done"}) == "done\n[exit code 0]"


async def test_long_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    command = "printf START; head -c 200000 /dev/zero | tr '\\0' x; printf END"
    output = await run_command(ctx, {"command": command})
    assert output.startswith("START")
    assert output.endswith("END\n[exit code 0]")
    assert "bytes of output cut from the middle" in output
    assert len(output) < COMMAND_OUTPUT_LIMIT + 200


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"command": ""}, "must not be empty"),
        ({"command": "  "}, "must not be empty"),
        ({}, "'command' is required"),
        ({"command": "true", "timeout_seconds": 0}, "at least 1"),
        ({"command": "true", "timeout_seconds": "5"}, "integer"),
    ],
)
async def test_bad_arguments(ctx: ToolContext, args: dict[str, object], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await run_command(ctx, args)


async def test_timeout_stops_the_whole_process_group(ctx: ToolContext) -> None:
    command = SPAWNS_GRANDCHILD.format(sink="")
    with pytest.raises(ToolError, match="timed out after 1 s") as caught:
        await asyncio.wait_for(run_command(ctx, {"command": command, "timeout_seconds": 1}), 15)
    grandchild, shell = _pids(str(caught.value))
    assert survivors([grandchild, shell], pgid=shell) == []


async def test_cancellation_stops_the_whole_process_group(ctx: ToolContext, tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path)
    command = SPAWNS_GRANDCHILD.format(sink=f"> {fifo}")
    task = asyncio.create_task(run_command(ctx, {"command": command}))
    grandchild, shell = _pids(await read_fifo_line(fifo))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 15)
    assert survivors([grandchild, shell], pgid=shell) == []


async def test_cancellation_while_the_command_runs_stops_the_whole_process_group(
    ctx: ToolContext, tmp_path: Path
) -> None:
    # wait_for cancels run_command after 1.5 s, long after the spawn completed: this is the
    # Ctrl-C-while-waiting path (the test above usually lands while the spawn is finishing).
    fifo = make_fifo(tmp_path)
    reader = asyncio.create_task(read_fifo_line(fifo))
    command = SPAWNS_GRANDCHILD.format(sink=f"> {fifo}")
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(run_command(ctx, {"command": command}), 1.5)
    grandchild, shell = _pids(await reader)
    assert survivors([grandchild, shell], pgid=shell) == []


async def test_processes_left_behind_are_stopped_when_the_command_exits(ctx: ToolContext) -> None:
    output = await asyncio.wait_for(run_command(ctx, {"command": 'sleep 1000 & echo "pids $! $$"'}), 15)
    grandchild, shell = _pids(output)
    assert "they were stopped" in output
    assert "[exit code 0]" in output
    assert survivors([grandchild, shell], pgid=shell) == []


async def test_a_process_ignoring_sigterm_is_killed(ctx: ToolContext) -> None:
    command = "trap '' TERM; sleep 1000 & echo \"pids $! $$\"; trap '' TERM; sleep 1000"
    with pytest.raises(ToolError) as caught:
        await asyncio.wait_for(run_command(ctx, {"command": command, "timeout_seconds": 1}), 15)
    grandchild, shell = _pids(str(caught.value))
    assert survivors([grandchild, shell], pgid=shell) == []


async def test_commands_do_not_see_levelcode_provider_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Load-bearing: a command the model runs (perhaps prompt-injected) cannot read our API keys."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("PROJECT_SETTING", "visible")
    ctx = ToolContext(tmp_path, autopilot=True)
    out = await run_command(
        ctx, {"command": "echo A=${ANTHROPIC_API_KEY:-unset} O=${OPENAI_API_KEY:-unset} P=$PROJECT_SETTING"}
    )
    assert "A=unset O=unset P=visible" in out
