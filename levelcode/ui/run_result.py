"""A headless run's result object: the only line `--output-format json` prints, and the last one of
`stream-json` (and `run --json`). Its fields are Claude Code's where one maps — `type: "result"`,
`subtype`, `is_error`, `result`, `session_id`, `num_turns`, `duration_ms`, `stop_reason`,
`total_cost_usd`, `usage` — plus LevelCode's `model`, and `errors` when the run failed. Fields
Claude Code has and LevelCode cannot fill honestly (`duration_api_ms`, `permission_denials`,
`modelUsage`) are left out rather than guessed.

Also the two sinks a headless run needs for it: one that remembers how the turn ended, and the one
`json` runs with, which holds the answer back for the object and shows the rest as `run` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from levelcode.agent.events import AgentEvent, EventSink, TextDelta, TurnFinished
from levelcode.agent.spend import Spend
from levelcode.ui.render import usage_json

MAX_STEPS = "max_steps"  # the loop's stop reason when it ran out of steps (agent/loop.py)


@dataclass(frozen=True)
class RunOutcome:
    code: int  # the exit status: 0 done, 1 failed, 130 aborted
    text: str  # the final answer; "" when there is none
    stop_reason: str | None  # the model's, or "max_steps"; None when the turn did not finish
    failure: str | None  # what went wrong, as said on stderr; None when nothing did
    session_id: str | None  # `levelcode -p -r ID` goes on with it; None when it was not saved
    model: str
    spend: Spend  # this run's requests: its tokens and cost
    duration_ms: int


def result_object(outcome: RunOutcome) -> dict[str, object]:
    """The result object, keys in Claude Code's order; `total_cost_usd` is null when a request's
    model has no known price (never a number that is too low)."""
    cost = outcome.spend.cost
    result: dict[str, object] = {
        "type": "result",
        "subtype": _subtype(outcome),
        "is_error": outcome.code != 0,
        "duration_ms": outcome.duration_ms,
        "num_turns": outcome.spend.requests,
        "result": outcome.text,
        "stop_reason": outcome.stop_reason,
        "session_id": outcome.session_id,
        "total_cost_usd": None if cost is None else round(cost, 6),
        "usage": usage_json(outcome.spend.usage),
        "model": outcome.model,
    }
    if outcome.code != 0:
        result["errors"] = [outcome.failure or "the run gave no final answer"]
    return result


def _subtype(outcome: RunOutcome) -> str:
    if outcome.code == 0:
        return "success"
    return "error_max_turns" if outcome.stop_reason == MAX_STEPS else "error_during_execution"


class TurnEndSeen:
    """Passes every event on, keeping the turn's end (its stop reason) for the result object."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.finished: TurnFinished | None = None

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, TurnFinished):
            self.finished = event
        self.sink.emit(event)


class AnswerHeld:
    """`--output-format json`: the model's text is held for the result object (stdout is that
    object alone); tool activity and notices go where `run` shows them (stderr)."""

    def __init__(self, activity: EventSink) -> None:
        self.activity = activity

    def emit(self, event: AgentEvent) -> None:
        if not isinstance(event, TextDelta | TurnFinished):
            self.activity.emit(event)
