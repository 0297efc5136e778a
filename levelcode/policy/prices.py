"""A price per million tokens of each kind a model's API reports, and the user's own prices as
they write them (`"prices"` in their settings), parsed.

Pure: plain data in, plain data out. The published prices of the models LevelCode knows, and
which price a model's name finds, are the providers' (providers/prices.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from levelcode.core.messages import Usage

PURE = True

PER_TOKENS = 1_000_000
PRICE_KEYS = ("input", "output", "cacheRead", "cacheWrite")  # in settings; Price's fields, in order


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens of each kind; `long_prompt`: (over how many prompt tokens,
    the rates then) for a model priced by prompt length."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    long_prompt: tuple[int, Price] | None = None

    def cost(self, usage: Usage) -> float:
        """What one request cost (its usage as the API reported it)."""
        rates = self
        if self.long_prompt is not None and usage.prompt_tokens > self.long_prompt[0]:
            rates = self.long_prompt[1]
        return (
            usage.input_tokens * rates.input
            + usage.cache_read_input_tokens * rates.cache_read
            + usage.cache_creation_input_tokens * rates.cache_write
            + usage.output_tokens * rates.output
        ) / PER_TOKENS


def parse_prices(raw: object) -> tuple[dict[str, Price], list[tuple[str, str]]]:
    """The user's `"prices"`: {model: {"input", "output", "cacheRead", "cacheWrite"}} in dollars per
    million tokens; input and output required, a cache rate left out costs what input does. Each
    bad entry is left out and reported as (key, problem)."""
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [("prices", 'expected an object such as {"MODEL": {"input": 3, "output": 15}}')]
    prices: dict[str, Price] = {}
    problems: list[tuple[str, str]] = []
    for model, entry in raw.items():
        price = _parse_price(entry)
        if isinstance(price, Price):
            prices[str(model)] = price
        else:
            problems.append((f"prices.{model}", price))
    return prices, problems


def _parse_price(entry: object) -> Price | str:
    if not isinstance(entry, Mapping):
        return 'expected an object such as {"input": 3, "output": 15}; ignored'
    unknown = [str(key) for key in entry if key not in PRICE_KEYS]
    if unknown:
        return f"unknown key {unknown[0]!r} (use {', '.join(PRICE_KEYS)}); ignored"
    rates: list[float] = []
    for key in PRICE_KEYS:
        rate = _rate(entry.get(key, entry.get("input") if key.startswith("cache") else None))
        if rate is None:
            return f"{key}: expected dollars per million tokens (a number, 0 or more); ignored"
        rates.append(rate)
    input, output, cache_read, cache_write = rates
    return Price(input, output, cache_read, cache_write)


def _rate(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None
