"""The `run_command` tool: one shell command in the workspace, bounded in time and output.

The command's whole process group is stopped on timeout, on cancellation (the user's Ctrl-C), and
when the command exits leaving background processes behind: nothing it started outlives the call.
"""

from __future__ import annotations

from levelcode.errors import ToolError
from levelcode.tools.arguments import optional_int, required_str
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from levelcode.tools.command_approval import run_command_approval
from levelcode.tools.output_caps import COMMAND_OUTPUT_LIMIT, HeadTailBuffer
from levelcode.tools.process_group import ShellProcess, exit_description, group_alive

DEFAULT_TIMEOUT_SECONDS = 120
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
    output = HeadTailBuffer(COMMAND_OUTPUT_LIMIT)
    process = await ShellProcess.start(command, ctx.workspace, output.add)
    try:
        finished = await process.wait(timeout)
        leftovers = finished and group_alive(process.pid)
    finally:
        await process.stop()  # whatever happened above — timeout, Ctrl-C — nothing outlives the call
    if not finished:
        raise ToolError(
            f"the command timed out after {timeout} s and was stopped (its whole process group). "
            f"Output so far:\n{output.render().rstrip() or '(no output)'}"
        )
    return _report(output, process.returncode, leftovers)


RUN_COMMAND = BuiltinTool(
    name="run_command",
    description=(
        "Run a shell command with bash in the workspace and return its combined stdout and stderr "
        f"(long output keeps its start and end) and exit code. Times out after timeout_seconds "
        f"(default {DEFAULT_TIMEOUT_SECONDS}, at most {MAX_TIMEOUT_SECONDS}). Processes it leaves "
        "running are stopped when it exits: use start_background_command for servers and watchers."
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
