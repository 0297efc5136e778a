"""The `run_command` tool: one shell command in the workspace, bounded in time and output, in the
session's sandbox when there is one.

The command's whole process group is stopped on timeout, on cancellation (the user's Ctrl-C), and
when the command exits leaving background processes behind: nothing it started outlives the call.
When the sandbox blocked it, the result says what and why, and a person (never a headless run)
may allow one run outside the sandbox. After a confined run, git control entries it planted in the
workspace are moved away and the result says where.
"""

from __future__ import annotations

import asyncio

from levelcode.core.errors import ToolError
from levelcode.sandbox.confinement import Wrap
from levelcode.sandbox.diagnosis import sandbox_refusals
from levelcode.sandbox.policy import SandboxPolicy
from levelcode.tools.arguments import optional_int, required_str
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from levelcode.tools.command_approval import run_command_approval
from levelcode.tools.command_sandbox import (
    command_confinement,
    planted_after,
    planted_after_now,
    rerun_allowed,
)
from levelcode.tools.output_caps import COMMAND_OUTPUT_LIMIT, HeadTailBuffer
from levelcode.tools.process_group import ShellProcess, exit_description, group_alive

DEFAULT_TIMEOUT_SECONDS = 120
SANDBOX_NOTE = (
    "Where LevelCode has a sandbox, commands run in it: only the workspace, added folders and /tmp "
    "are writable, secrets are hidden and the network is off unless the user allowed it. Git works "
    "there (add, commit, branch, switch, merge, rebase, stash, worktree add, submodule update), but "
    "git's config, hooks and the other files that decide what git runs are read-only, and git "
    "control files or repositories a command creates that git would act on are moved out of the "
    "workspace. Lines starting with [sandbox] say what it blocked or moved."
)
MAX_TIMEOUT_SECONDS = 600


def _report(output: HeadTailBuffer, returncode: int | None, stopped_leftovers: bool) -> str:
    lines = [output.render().rstrip("\n") or "(no output)", f"[{exit_description(returncode)}]"]
    if stopped_leftovers:
        lines.append(
            "[the command left background processes running; they were stopped. "
            "Use start_background_command for servers and other long-running processes]"
        )
    return "\n".join(lines)


async def run_command(ctx: ToolContext, args: Args) -> str:
    command = required_str(args, "command")
    timeout = optional_int(
        args, "timeout_seconds", DEFAULT_TIMEOUT_SECONDS, minimum=1, maximum=MAX_TIMEOUT_SECONDS
    )
    confined = command_confinement(ctx)
    if confined is None:
        return (await _run(ctx, command, timeout, None))[0]
    policy, wrap = confined
    report, returncode, planted = await _confined_run(ctx, command, timeout, policy, wrap)
    refusals = sandbox_refusals(report, returncode, policy)
    if not refusals:
        return "\n".join([report, *planted])
    blocked = "\n".join([report, *refusals, *planted])
    allowed = await rerun_allowed(ctx, command, refusals)
    if allowed is None:
        return blocked
    if not allowed:
        return blocked + "\n[the user did not allow a run outside the sandbox]"
    again, _ = await _run(ctx, command, timeout, None)
    return f"{blocked}\n[the user allowed one run outside the sandbox; it gave:]\n{again}"


async def _confined_run(
    ctx: ToolContext, command: str, timeout: int, policy: SandboxPolicy, wrap: Wrap
) -> tuple[str, int | None, list[str]]:
    """One run in the sandbox, then the check for git control entries it planted — which also
    follows a timeout (in the error) and a cancellation (told to the user only)."""
    try:
        report, returncode = await _run(ctx, command, timeout, wrap)
    except ToolError as exc:
        planted = await planted_after(ctx, policy)
        raise ToolError("\n".join([str(exc), *planted])) from exc
    except asyncio.CancelledError:
        planted_after_now(ctx, policy)
        raise
    return report, returncode, await planted_after(ctx, policy)


async def _run(ctx: ToolContext, command: str, timeout: int, wrap: Wrap | None) -> tuple[str, int | None]:
    """The report and exit status of one run, confined by `wrap` unless it is None."""
    output = HeadTailBuffer(COMMAND_OUTPUT_LIMIT)
    process = await ShellProcess.start(command, ctx.workspace, output.add, wrap=wrap)
    try:
        finished = await process.wait(timeout)
        # Inside the sandbox nothing can be left over: the pid namespace ends with the command.
        leftovers = finished and wrap is None and group_alive(process.pid)
    finally:
        await process.stop()  # whatever happened above — timeout, Ctrl-C — nothing outlives the call
    if not finished:
        raise ToolError(
            f"the command timed out after {timeout} s and was stopped (its whole process group). "
            f"Output so far:\n{output.render().rstrip() or '(no output)'}"
        )
    return _report(output, process.returncode, leftovers), process.returncode


RUN_COMMAND = BuiltinTool(
    name="run_command",
    description=(
        "Run a shell command with bash in the workspace and return its combined stdout and stderr "
        f"(long output keeps its start and end) and exit code. Times out after timeout_seconds "
        f"(default {DEFAULT_TIMEOUT_SECONDS}, at most {MAX_TIMEOUT_SECONDS}). Processes it leaves "
        "running are stopped when it exits: use start_background_command for servers and watchers. "
        f"{SANDBOX_NOTE}"
    ),
    input_schema={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "A bash command line"},
            "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_SECONDS},
        },
        "required": ["command"],
    },
    run=run_command,
    approval=run_command_approval,
)
