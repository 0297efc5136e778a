"""`!cmd` where no sandbox can be set up: the user's own line runs without a card (the model's
would ask), unconfined as in their shell, says so, and its output waits for the next message."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from levelcode.cli.repl.shell_lines import GOES_WITH_NEXT, RAN_UNCONFINED, run_shell_line
from levelcode.core.approvals import ApprovalRequest, Choice
from levelcode.tools.base import ToolContext
from levelcode.tools.command_approval import run_command_approval
from levelcode.ui.activity_line import ActivityLine
from tests.support.sandbox import missing_confinement


class NobodyAsked:
    interactive = True

    async def decide(self, request: ApprovalRequest) -> Choice:
        raise AssertionError(f"a card was shown: {request.title}")


def test_without_a_sandbox_the_line_runs_unconfined_and_says_so(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path, sandbox=missing_confinement(), approver=NobodyAsked())
    assert run_command_approval(ctx, {"command": "echo hi"}) is not None  # the model's would ask
    out = io.StringIO()
    console = Console(file=out, width=100)
    repl = SimpleNamespace(
        console=console, session=SimpleNamespace(ctx=ctx), line=ActivityLine(console), pending=[], turn=None
    )
    asyncio.run(run_shell_line(repl, "echo hi > made.txt; echo done"))  # type: ignore[arg-type]
    shown = out.getvalue()
    assert "done\n[exit code 0]" in shown
    assert RAN_UNCONFINED in shown
    assert GOES_WITH_NEXT in shown
    assert (tmp_path / "made.txt").read_text() == "hi\n"
    (kept,) = repl.pending
    assert (kept.kind, kept.source) == ("command_output", "echo hi > made.txt; echo done")
    assert "done\n[exit code 0]" in kept.text
