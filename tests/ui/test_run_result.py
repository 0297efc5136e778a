"""The result object of a headless run (`--output-format json`, the last line of `stream-json`):
Claude Code's field names and subtypes where they map, a cost that is null rather than too low
when a price is unknown, and `errors` exactly when the run failed."""

from __future__ import annotations

import dataclasses

from levelcode.agent.events import Notice, RecordingSink, TextDelta, TurnFinished
from levelcode.agent.spend import Spend
from levelcode.core.messages import Usage
from levelcode.ui.run_result import AnswerHeld, RunOutcome, TurnEndSeen, result_object

DONE = RunOutcome(
    code=0,
    text="Fixed it.",
    stop_reason="end_turn",
    failure=None,
    session_id="20260101-abc",
    model="gpt-5.5",
    spend=Spend(Usage(input_tokens=10, output_tokens=5), 0.0123456789, 2),
    duration_ms=1500,
)


def test_a_finished_run_is_a_success() -> None:
    result = result_object(DONE)
    assert list(result)[:4] == ["type", "subtype", "is_error", "duration_ms"]
    assert result["type"] == "result"
    assert (result["subtype"], result["is_error"]) == ("success", False)
    assert (result["result"], result["session_id"], result["num_turns"]) == ("Fixed it.", "20260101-abc", 2)
    assert result["total_cost_usd"] == 0.012346
    assert result["usage"] == {
        "input_tokens": 10,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "output_tokens": 5,
    }
    assert "errors" not in result


def test_failures_name_their_subtype_and_say_why() -> None:
    failed = result_object(dataclasses.replace(DONE, code=1, text="", stop_reason=None, failure="error: 404"))
    assert (failed["subtype"], failed["is_error"], failed["errors"]) == (
        "error_during_execution",
        True,
        ["error: 404"],
    )
    out_of_steps = result_object(dataclasses.replace(DONE, code=1, text="", stop_reason="max_steps"))
    assert out_of_steps["subtype"] == "error_max_turns"
    assert out_of_steps["errors"] == ["the run gave no final answer"]
    aborted = result_object(dataclasses.replace(DONE, code=130, failure="aborted: by you"))
    assert (aborted["subtype"], aborted["is_error"]) == ("error_during_execution", True)


def test_an_unknown_price_is_null_never_zero() -> None:
    unpriced = result_object(dataclasses.replace(DONE, spend=Spend(Usage(output_tokens=5), None, 1)))
    assert unpriced["total_cost_usd"] is None


def test_json_holds_the_answer_back_and_the_turns_end_is_seen() -> None:
    shown = RecordingSink()
    seen = TurnEndSeen(AnswerHeld(shown))
    finished = TurnFinished("Fixed it.", "end_turn")
    for event in (TextDelta("Fixed"), Notice("no sandbox"), finished):
        seen.emit(event)
    assert shown.events == [Notice("no sandbox")]
    assert seen.finished == finished
