"""`!cmd` in the REPL: the user's own shell line, run exactly as the model's `run_command` runs
under this session's rules — bash in the workspace, inside the session's sandbox when there is
one, bounded in time and output, its whole process group ended on Ctrl-C or timeout — with one
question fewer: no approval card before it runs, because the person who would answer it typed
it. So the safety check that flags a model's command (it exists to stop the model) is not asked
either. Everything after that is the same gate: what the sandbox blocks stays blocked, and a run
outside the sandbox takes the same card and Ctrl-Y the model's would. With no sandbox here the
line runs unconfined, as in the user's own shell, and a dim note says so.

The output is shown, and goes to the model with the next message as context (a typed
attachment, core/attachments.py), as several `!` lines do before one message; /new forgets it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text

from levelcode.core.attachments import command_attachment
from levelcode.core.errors import ToolError
from levelcode.ui.visible import visible, visible_block

if TYPE_CHECKING:
    from levelcode.cli.repl.face import ReplFace

SHELL_MARK = "!"
GOES_WITH_NEXT = "(this output goes to the model with your next message)"
RAN_UNCONFINED = "no sandbox here: it ran unconfined, as in your own shell"


async def run_shell_line(repl: ReplFace, command: str) -> None:
    """Run the user's `command`, show its output, and keep it for the next message."""
    from levelcode.tools.command_sandbox import unconfined_note  # the tools load behind the prompt
    from levelcode.tools.run_command import RUN_COMMAND

    if not command.strip():
        repl.console.print(Text("usage: !COMMAND (a shell line, run in the workspace)", style="yellow"))
        return
    ctx = repl.session.ctx
    work = asyncio.ensure_future(RUN_COMMAND.run(ctx, {"command": command}))
    repl.turn = work
    try:
        with repl.line.showing(visible(SHELL_MARK + command)):
            report = await work
    except asyncio.CancelledError:
        if not work.cancelled():
            raise
        repl.console.print(Text("⏹ stopped (its processes too)", style="yellow"))
        return
    except ToolError as exc:  # it timed out: what it printed is in the message
        report = f"ERROR: {exc}"
    finally:
        repl.turn = None
    repl.console.out(visible_block(report), highlight=False)
    if unconfined_note(ctx) is not None:
        repl.console.print(Text(RAN_UNCONFINED, style="dim"))
    repl.console.print(Text(GOES_WITH_NEXT, style="dim"))
    repl.pending.append(command_attachment(command, report))
