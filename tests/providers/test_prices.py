"""The price table and the user's prices. Load-bearing directions: a request costs each kind of
token at its own rate (a cache read is not billed as input, a cache write not as a read); a model
is priced only by its own entry or a dated snapshot of it — a model LevelCode does not know, or a
newer version of one it does, has no price rather than a wrong one; the user's price wins; a bad
entry in settings is reported and left out, never half-read."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.messages import Usage
from levelcode.policy.prices import Price, parse_prices
from levelcode.providers.prices import KNOWN_PRICES, find_price


def test_each_kind_of_token_at_its_own_rate() -> None:
    sonnet = find_price("claude-sonnet-5-5", {})
    assert sonnet is not None
    assert sonnet.price == Price(input=2, output=10, cache_read=0.10, cache_write=2.50)
    usage = Usage(
        input_tokens=1_000,
        output_tokens=500,
        cache_read_input_tokens=20_000,
        cache_creation_input_tokens=3_000,
    )
    expected = (1_000 * 2 + 500 * 10 + 20_000 * 0.10 + 3_000 * 2.50) / 1_000_000
    assert math.isclose(sonnet.price.cost(usage), expected)
    gpt = find_price("gpt-5.5", {})
    assert gpt is not None
    assert gpt.price.cost(Usage(1_000_000, 1_000_000, 1_000_000)) == pytest.approx(5 + 30 + 0.50)


def test_haiku_5_5_costs_more_for_a_long_prompt() -> None:
    haiku = find_price("claude-haiku-5-5", {})
    assert haiku is not None
    short = Usage(input_tokens=100_000, output_tokens=1_000)
    long = Usage(input_tokens=90_000, output_tokens=1_000, cache_read_input_tokens=10_001)
    assert haiku.price.cost(short) == pytest.approx((100_000 * 0.10 + 1_000 * 0.50) / 1e6)
    assert haiku.price.cost(long) == pytest.approx((90_000 * 0.50 + 1_000 * 2.50 + 10_001 * 0.05) / 1e6)


@pytest.mark.parametrize(
    ("model", "listed"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),  # OpenRouter's name
        ("openai/gpt-5.5", "gpt-5.5"),
        ("gpt-5.4-mini-2026-03-17", "gpt-5.4-mini"),
        ("GPT-4o", "gpt-4o"),
        ("claude-opus-5-5", "claude-opus-5-5"),
        ("claude-opus-5", "claude-opus-5"),
    ],
)
def test_a_model_is_priced_by_its_own_entry_or_a_snapshot_of_it(model: str, listed: str) -> None:
    found = find_price(model, {})
    assert found is not None
    assert (found.name, found.source) == (listed, "built-in")


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-5-6",  # a newer version of a known model: not the older one's price
        "claude-opus-5-5-fast",
        "gpt-5.6",
        "gpt-5.5-mini",
        "gpt-5.4-codex",
        "qwen3-coder:30b",
        "local",
        "",
    ],
)
def test_a_model_not_in_the_table_has_no_price(model: str) -> None:
    assert find_price(model, {}) is None


def test_the_users_price_wins_and_prices_a_model_the_table_lacks() -> None:
    mine = {"claude-sonnet-5-5": Price(1, 1, 1, 1), "qwen3-coder:30b": Price(0, 0, 0, 0)}
    found = find_price("claude-sonnet-5-5", mine)
    assert found is not None
    assert (found.price, found.source) == (Price(1, 1, 1, 1), "settings")
    local = find_price("qwen3-coder:30b", mine)
    assert local is not None
    assert local.price.cost(Usage(10**6, 10**6)) == 0


def test_settings_prices_parse_with_cache_rates_defaulting_to_input() -> None:
    prices, problems = parse_prices(
        {
            "m1": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
            "m2": {"input": 1, "output": 2.5},
        }
    )
    assert problems == []
    assert prices == {"m1": Price(3, 15, 0.3, 3.75), "m2": Price(1, 2.5, 1, 1)}


BAD_ENTRIES = {
    "not an object": 3,
    "no output": {"input": 3},
    "no input": {"output": 3},
    "negative": {"input": -1, "output": 3},
    "a string": {"input": "3", "output": 3},
    "a bool": {"input": True, "output": 3},
    "not finite": {"input": float("inf"), "output": 3},
    "bad cache rate": {"input": 1, "output": 3, "cacheRead": None},
    "misspelled key": {"input": 1, "output": 3, "cache_read": 0.1},
}


@pytest.mark.parametrize("case", sorted(BAD_ENTRIES))
def test_a_bad_settings_entry_is_reported_and_left_out(case: str) -> None:
    prices, problems = parse_prices({"bad": BAD_ENTRIES[case], "good": {"input": 1, "output": 2}})
    assert prices == {"good": Price(1, 2, 1, 1)}
    assert [key for key, _ in problems] == ["prices.bad"]
    assert "ignored" in problems[0][1]


def test_prices_that_are_not_an_object_are_reported() -> None:
    assert parse_prices(None) == ({}, [])
    prices, problems = parse_prices(["gpt-5.5"])
    assert prices == {}
    assert problems[0][0] == "prices"


def test_every_known_price_is_sane() -> None:
    for name, price in KNOWN_PRICES.items():
        assert name == name.lower()
        assert 0 < price.cache_read <= price.input <= price.cache_write, name
        assert price.input < price.output, name


tokens = st.integers(0, 10**7)
usages = st.builds(Usage, tokens, tokens, tokens, tokens)


@given(st.sampled_from(sorted(KNOWN_PRICES)), usages, usages)
def test_cost_adds_up_and_is_never_negative(name: str, first: Usage, second: Usage) -> None:
    price = KNOWN_PRICES[name]
    if price.long_prompt is None:  # a priced-by-length model adds up per request, not in sum
        assert price.cost(first + second) == pytest.approx(price.cost(first) + price.cost(second))
    assert price.cost(first) >= 0
