"""Tokens and cost in words and in `run --json`: the line after a turn, `/cost`'s table, the final
event's fields. Load-bearing: a cost is never shown as a number when the model has no known
price (it says how to set one), and a cheap turn is not rounded to nothing."""

from __future__ import annotations

import io
import json

from levelcode.agent.events import TurnFinished
from levelcode.agent.spend import Spend, SpendMeter, SpendReport
from levelcode.core.messages import Usage
from levelcode.providers.prices import Price
from levelcode.ui.render import JsonLinesSink
from levelcode.ui.spend_view import render_spend, turn_line, usd


def test_dollars_keep_a_cheap_turn_visible() -> None:
    assert usd(0.0213456) == "$0.0213"
    assert usd(0.00004) == "$0.0000"
    assert usd(0) == "$0.00"
    assert usd(1234.5) == "$1,234.50"
    assert usd(None) == "unknown (set prices in settings)"


def test_the_line_after_a_turn() -> None:
    turn = Spend(Usage(1_234, 321, 10_240, 2_048), 0.0213, 2)
    session = Spend(Usage(5_000, 900, 30_000, 2_048), 0.1234, 6)
    assert turn_line(turn, session) == (
        "tokens: 1,234 in · 10,240 cache read · 2,048 cache write · 321 out · $0.0213 (session $0.1234)"
    )
    uncached = Spend(Usage(50, 7), None, 1)
    assert turn_line(uncached, uncached) == "tokens: 50 in · 7 out · cost unknown (set prices in settings)"


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
    assert "my-local has no known price: cost unknown (set prices in settings)" in shown
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
    assert unknown["cost_note"] == "unknown (set prices in settings)"
