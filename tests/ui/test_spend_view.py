"""Tokens and cost in words and in `run --json`: the line after a turn, `/cost`'s table, the final
event's fields. Load-bearing: a cost is never shown as a number when the model has no known
price (it says how to set one), and a cheap turn is not rounded to nothing."""

from __future__ import annotations

import io
import json

from levelcode.agent.events import TurnFinished
from levelcode.agent.spend import Spend, SpendMeter, SpendReport
from levelcode.core.messages import Usage
from levelcode.policy.prices import Price
from levelcode.ui.render import JsonLinesSink
from levelcode.ui.spend_view import render_spend, turn_line, usd


def test_dollars_below_a_cent_are_shown_as_such() -> None:
    assert usd(0.0213456) == "$0.0213"
    assert usd(0.0042) == "$0.0042"
    assert usd(0.0001) == "$0.0001"
    assert usd(0.00004) == "<$0.0001"  # never "$0.0000": something was spent
    assert usd(0.000_000_1) == "<$0.0001"
    assert usd(0) == "$0.00"
    assert usd(1234.5) == "$1,234.50"


def test_the_line_after_a_turn() -> None:
    turn = Spend(Usage(1_234, 321, 10_240, 2_048), 0.0213, 2)
    session = Spend(Usage(5_000, 900, 30_000, 2_048), 0.1234, 6)
    assert turn_line(turn, session, "gpt-5.5") == (
        "tokens: 1,234 in · 10,240 cache read · 2,048 cache write · 321 out · $0.0213 (session $0.1234)"
    )
    tiny = Spend(Usage(12, 3), 0.000_015, 1)
    assert turn_line(tiny, tiny, "gpt-5.4-nano").endswith(" · <$0.0001 (session <$0.0001)")
    uncached = Spend(Usage(50, 7), None, 1)
    assert turn_line(uncached, uncached, "my-local") == (
        "tokens: 50 in · 7 out · cost unknown: my-local has no known price; "
        'set it under "prices" in your settings.json'
    )


def test_a_session_total_is_unknown_only_when_a_request_had_no_price() -> None:
    """A model switched to mid-session (or a resumed session) after requests to an unpriced one:
    the turn has a cost, the session's total cannot."""
    turn = Spend(Usage(1_000, 100), 0.0042, 1)
    session = Spend(Usage(3_000, 300), None, 3)
    assert turn_line(turn, session, "gpt-5.5").endswith(
        " · $0.0042 (session total unknown: an earlier request went to a model with no known price)"
    )
    meter = SpendMeter()
    for model in ("gpt-5.5", "claude-sonnet-5-5"):
        meter.begin_turn()
        meter.record(model, Usage(1_000, 100))
        meter.end_turn()
    assert meter.session.cost is not None
    assert "unknown" not in turn_line(meter.turn, meter.session, "claude-sonnet-5-5")


def _meter(prices: dict[str, Price] | None = None, model: str = "gpt-5.5") -> SpendMeter:
    meter = SpendMeter(prices)
    for usage in (Usage(1_000, 100, 0), Usage(2_000, 200, 8_000)):
        meter.begin_turn()
        meter.record(model, usage)
        meter.end_turn()
    meter.record(model, Usage(3_000, 50))  # /compact, between turns
    return meter


def test_cost_lists_turns_compaction_and_the_session() -> None:
    shown = render_spend(_meter(), "gpt-5.5").splitlines()
    assert shown[:2] == [
        "Tokens and cost (gpt-5.5)",
        "  per million tokens (the provider's list price): "
        "input $5.00 · cache read $0.50 · cache write $5.00 · output $30.00",
    ]
    rows = {" ".join(line.split()[:-5]): line.split()[-5:] for line in shown[3:]}
    assert rows == {
        "turn 1": ["1,000", "0", "0", "100", "$0.0080"],
        "turn 2": ["2,000", "8,000", "0", "200", "$0.0200"],
        "/compact": ["3,000", "0", "0", "50", "$0.0165"],
        "session": ["6,000", "8,000", "0", "350", "$0.0445"],
    }


def test_cost_of_an_unknown_model_says_how_to_price_it() -> None:
    shown = render_spend(_meter(model="my-local"), "my-local")
    assert 'my-local has no known price; set it under "prices" in your settings.json' in shown
    assert "$" not in shown
    priced = render_spend(_meter({"my-local": Price(0, 0, 0, 0)}, "my-local"), "my-local")
    assert "(your settings): input $0.00 · cache read $0.00" in priced


def test_cost_before_any_request() -> None:
    assert render_spend(SpendMeter(), "gpt-5.5").endswith("No requests yet.")


def _final(report: SpendReport) -> dict[str, object]:
    out = io.StringIO()
    JsonLinesSink(out).emit(TurnFinished("done", "end_turn", report.turn.usage, report))
    loaded: dict[str, object] = json.loads(out.getvalue())
    return loaded


def test_the_final_json_event_carries_the_cost_of_the_turn_and_the_session() -> None:
    turn = Spend(Usage(1_000, 100, 500, 200), 0.01234567, 2)
    session = Spend(Usage(3_000, 300, 500, 200), 0.03, 5)
    final = _final(SpendReport("claude-sonnet-5-5", turn, session))
    assert final == {
        "type": "final",
        "text": "done",
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 1_000,
            "cache_read_input_tokens": 500,
            "cache_creation_input_tokens": 200,
            "output_tokens": 100,
        },
        "model": "claude-sonnet-5-5",
        "cost_usd": 0.012346,
        "session": {
            "usage": {
                "input_tokens": 3_000,
                "cache_read_input_tokens": 500,
                "cache_creation_input_tokens": 200,
                "output_tokens": 300,
            },
            "cost_usd": 0.03,
        },
    }
    unknown = _final(SpendReport("my-local", Spend(Usage(1, 1), None, 1), Spend(Usage(1, 1), None, 1)))
    assert unknown["cost_usd"] is None
    assert unknown["cost_note"] == 'my-local has no known price; set it under "prices" in your settings.json'
    carried = _final(SpendReport("gpt-5.5", Spend(Usage(1, 1), 0.0001, 1), Spend(Usage(2, 2), None, 2)))
    assert carried["cost_usd"] == 0.0001
    assert "cost_note" not in carried
    assert carried["session"] == {
        "usage": {
            "input_tokens": 2,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "output_tokens": 2,
        },
        "cost_usd": None,
        "cost_note": "an earlier request went to a model with no known price",
    }
