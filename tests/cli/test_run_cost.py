"""`levelcode run --json` ends with the turn's tokens and cost and the session's: a real
`levelcode` process against the fake provider servers, whose usage (Anthropic's with cache reads
and writes) is what gets priced. Load-bearing: the cost is the API's token counts at the model's
published rates (written out here, not read from the table), or the user's own; a model without a
price gets `null` and a note, never a number; a repository cannot set prices."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings

STEPS = [
    Reply(text="Reading.", tool_calls=(ToolCall("read_file", {"path": "a.txt"}),)),
    Reply(text="It says hi."),
]
# US dollars per million tokens: input, cache read, cache write, output
LIST_PRICES = {"claude-sonnet-5-5": (2, 0.10, 2.50, 10), "gpt-5.5": (5, 0.50, 5, 30)}


def _run_json(
    api: Api, server: ScriptedServer, home: Path, workspace: Path, model: str
) -> list[dict[str, Any]]:
    command = [
        str(LEVELCODE),
        "run",
        "--json",
        "-C",
        str(workspace),
        *provider_flags(api.name, server.base_url, model),
    ]
    done = subprocess.run(
        [*command, "what does a.txt say?"],
        capture_output=True,
        text=True,
        env=provider_env(home, api.name),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _final(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The turn's `final` event (the result object follows it: tests/cli/test_print_mode.py)."""
    return next(event for event in events if event["type"] == "final")


def _cost(usage: dict[str, int], rates: tuple[float, float, float, float]) -> float:
    uncached, read, write, output = rates
    return (
        usage["input_tokens"] * uncached
        + usage["cache_read_input_tokens"] * read
        + usage["cache_creation_input_tokens"] * write
        + usage["output_tokens"] * output
    ) / 1_000_000


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_the_final_event_prices_the_turn_and_the_session(
    api: Api, isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    with api.fake(STEPS) as server:
        final = _final(_run_json(api, server, isolated_home, tmp_path, api.model))
    assert final["type"] == "final"
    assert final["model"] == api.model
    usage = final["usage"]
    assert usage["output_tokens"] > 0
    if api is ANTHROPIC:  # two requests sharing a prefix: written, then read
        assert usage["cache_creation_input_tokens"] > 0
        assert usage["cache_read_input_tokens"] > 0
    assert final["cost_usd"] == pytest.approx(_cost(usage, LIST_PRICES[api.model]), abs=1e-6)
    assert final["cost_usd"] > 0
    assert final["session"] == {"usage": usage, "cost_usd": final["cost_usd"]}
    assert "cost_note" not in final


def test_a_model_without_a_price_says_how_to_set_one_and_the_users_price_is_used(
    isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    local = "qwen3-coder:30b"
    with OPENAI.fake(STEPS) as server:
        unpriced = _final(_run_json(OPENAI, server, isolated_home, tmp_path, local))
    assert unpriced["usage"]["input_tokens"] > 0
    assert unpriced["cost_usd"] is None
    assert unpriced["cost_note"] == (
        'qwen3-coder:30b has no known price; set it under "prices" in your settings.json'
    )
    assert unpriced["session"]["cost_usd"] is None

    write_settings(isolated_home, {"prices": {local: {"input": 0.5, "output": 1}, "typo": {"input": 1}}})
    (tmp_path / ".levelcode").mkdir()
    (tmp_path / ".levelcode" / "settings.json").write_text(
        json.dumps({"prices": {local: {"input": 0, "output": 0}}})
    )
    with OPENAI.fake(STEPS) as server:
        events = _run_json(OPENAI, server, isolated_home, tmp_path, local)
    final = _final(events)
    assert final["cost_usd"] == pytest.approx(_cost(final["usage"], (0.5, 0.5, 0.5, 1)), abs=1e-6)
    assert final["cost_usd"] > 0  # the repository's zero price was not taken
    notices = [event["text"] for event in events if event["type"] == "notice"]
    assert any("settings.json: prices: ignored: only your user settings may set this" in n for n in notices)
    assert any("prices.typo: output: expected dollars per million tokens" in n for n in notices)
