"""The command card: its note (no sandbox here) is shown, capitalized, between title and body,
and escaped like every other line."""

from __future__ import annotations

from rich.console import Console

from levelcode.agent.approvals import ApprovalRequest
from levelcode.ui.approval_card import render_card


def _shown(request: ApprovalRequest) -> list[str]:
    console = Console(width=200, record=True, force_terminal=False)
    console.print(render_card(request))
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_note_is_shown_before_the_command() -> None:
    note = "there is no sandbox here (reason\x1b[2K), so every command needs approval and runs unconfined"
    lines = _shown(ApprovalRequest("command", "Run command", ("make test",), note=note))
    shown = next(i for i, line in enumerate(lines) if line.startswith("There is no sandbox here"))
    assert "\\x1b[2K" in lines[shown]
    assert shown < lines.index("make test")


def test_no_note_no_line() -> None:
    lines = _shown(ApprovalRequest("command", "Run command", ("make test",)))
    assert not [line for line in lines if "sandbox" in line]
