"""What the model is told when nobody can approve. Load-bearing direction: a command refused
because there is no sandbox says so (and not "use --autopilot", which would not help); a flagged
command says it always needs a person. The second corpus: the ordinary case still points at
--autopilot, and interactive denials are unchanged."""

from __future__ import annotations

from levelcode.agent.toolbox import denial
from levelcode.core.approvals import ApprovalRequest

NOTE = (
    "there is no sandbox here (bwrap was not found on PATH), so every command needs approval "
    "and runs unconfined"
)


def test_no_sandbox_is_the_reason_given() -> None:
    text = denial(ApprovalRequest("command", "Run command", ("ls",), note=NOTE), interactive=False).text
    assert text == f"ERROR: not run: nobody can approve in this session, and {NOTE}. Do not retry it."
    assert "--autopilot" not in text


def test_flagged_wins_over_the_note() -> None:
    request = ApprovalRequest("command", "Run command", ("rm -rf /",), warning="Flagged", note=NOTE)
    assert "flagged as dangerous" in denial(request, interactive=False).text


def test_the_ordinary_reasons_are_unchanged() -> None:
    plain = ApprovalRequest("command", "Run command", ("ls",))
    assert "--autopilot lets edits and commands" in denial(plain, interactive=False).text
    with_note = ApprovalRequest("command", "Run command", ("ls",), note=NOTE)
    assert denial(with_note, interactive=True).text.startswith("ERROR: the user denied this command")
