"""The transcript helpers keep tool uses answered and user turns merged."""

from __future__ import annotations

from levelcode.agent.transcript import ABORTED_BEFORE_RUN, Transcript
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse
from levelcode.core.outcome import ToolOutcome


def test_answer_fills_missing_results_as_not_run() -> None:
    transcript = Transcript()
    transcript.add_prompt("go")
    uses = (ToolUse("a", "read_file"), ToolUse("b", "read_file"))
    transcript.add_assistant(Message("assistant", uses))
    assert not transcript.is_paired()
    transcript.answer(uses, [ToolResult("a", ToolOutcome("done"))])
    assert transcript.is_paired()
    assert [r.outcome for r in transcript.messages[-1].tool_results] == [
        ToolOutcome("done"),
        ABORTED_BEFORE_RUN,
    ]


def test_a_prompt_after_tool_results_joins_that_user_message() -> None:
    transcript = Transcript()
    transcript.add_prompt("go")
    uses = (ToolUse("a", "read_file"),)
    transcript.add_assistant(Message("assistant", uses))
    transcript.answer(uses, [ToolResult("a", ToolOutcome("done"))])
    transcript.add_prompt("and now?")
    assert [m.role for m in transcript.messages] == ["user", "assistant", "user"]
    assert transcript.messages[-1].content == (ToolResult("a", ToolOutcome("done")), TextBlock("and now?"))
