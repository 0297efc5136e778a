"""What a model's tokens cost: the published prices of the models LevelCode knows, and the user's
own (`"prices"` in their settings), in US dollars per million tokens.

Pure: plain data in, plain data out; no files, no network. A price has four rates, one per kind
of token the APIs report (core/messages.py `Usage`): uncached input, input read from the prompt
cache, input written to it, and output. Anthropic bills a cache write (5 minutes, the kind
LevelCode asks for) at 1.25 times input and a read at a tenth or less; OpenAI bills no writes and
reports none, and its cached input is the read rate.

A model matches a price's name exactly, or as a dated snapshot of it (`claude-sonnet-4-5-20250929`,
`gpt-5.4-mini-2026-03-17`); OpenRouter's names (`anthropic/claude-sonnet-4.5`, `openai/gpt-5.5`)
match the provider's own. The user's prices come first; an unknown model has no price (its tokens
are still counted, and the surfaces say how to set one). Batch, priority and regional surcharges
do not apply to LevelCode's requests; Claude Haiku 5.5's higher rate for prompts over 100,000
tokens does, per request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from levelcode.policy.prices import Price

PURE = True

_SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$")
_VENDOR = re.compile(r"^(anthropic|openai)/")


def _anthropic(input: float, output: float, cache_read: float) -> Price:
    return Price(input, output, cache_read, input * 1.25)


def _openai(input: float, output: float, cached: float) -> Price:
    return Price(input, output, cached, input)  # no writes are billed (or reported)


_HAIKU_5_5 = _anthropic(0.10, 0.50, 0.01)
_OPUS_4_5 = _anthropic(5, 25, 0.50)
_OPUS_4 = _anthropic(15, 75, 1.50)
_SONNET_4 = _anthropic(3, 15, 0.30)
_GPT_5 = _openai(1.25, 10, 0.125)
_PRO = _openai(30, 180, 30)  # no cached-input rate

# The providers' published list prices (checked against their pricing pages, late 2026).
KNOWN_PRICES: Mapping[str, Price] = {
    "claude-opus-5-5": _anthropic(4, 20, 0.20),
    "claude-opus-5": _OPUS_4_5,
    "claude-opus-4-8": _OPUS_4_5,
    "claude-opus-4-7": _OPUS_4_5,
    "claude-opus-4-6": _OPUS_4_5,
    "claude-opus-4-5": _OPUS_4_5,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4-0": _OPUS_4,
    "claude-opus-4": _OPUS_4,
    "claude-3-opus": _OPUS_4,
    "claude-sonnet-5-5": _anthropic(2, 10, 0.10),
    "claude-sonnet-5": _anthropic(2, 10, 0.20),
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4-0": _SONNET_4,
    "claude-sonnet-4": _SONNET_4,
    "claude-3-7-sonnet": _SONNET_4,
    "claude-haiku-5-5": replace(_HAIKU_5_5, long_prompt=(100_000, _anthropic(0.50, 2.50, 0.05))),
    "claude-haiku-4-5": _anthropic(1, 5, 0.10),
    "claude-3-5-haiku": _anthropic(0.80, 4, 0.08),
    "claude-3-haiku": _anthropic(0.25, 1.25, 0.03),
    "gpt-5.5": _openai(5, 30, 0.50),
    "gpt-5.5-pro": _PRO,
    "gpt-5.4": _openai(2.50, 15, 0.25),
    "gpt-5.4-mini": _openai(0.75, 4.50, 0.075),
    "gpt-5.4-nano": _openai(0.20, 1.25, 0.02),
    "gpt-5.4-pro": _PRO,
    "gpt-5.2": _openai(1.75, 14, 0.175),
    "gpt-5.1": _GPT_5,
    "gpt-5": _GPT_5,
    "gpt-5-mini": _openai(0.25, 2, 0.025),
    "gpt-5-nano": _openai(0.05, 0.40, 0.005),
    "gpt-4.1": _openai(2, 8, 0.50),
    "gpt-4.1-mini": _openai(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _openai(0.10, 0.40, 0.025),
    "gpt-4o": _openai(2.50, 10, 1.25),
    "gpt-4o-mini": _openai(0.15, 0.60, 0.075),
    "o3": _openai(2, 8, 0.50),
    "o4-mini": _openai(1.10, 4.40, 0.275),
}


@dataclass(frozen=True)
class PriceFound:
    price: Price
    name: str  # the name it is listed under
    source: str  # "settings" or "built-in"


def find_price(model: str, user_prices: Mapping[str, Price]) -> PriceFound | None:
    """The price of `model`: the user's for it, else the known one; None when neither has it."""
    for source, table in (("settings", user_prices), ("built-in", KNOWN_PRICES)):
        for name in _names(model):
            if name in table:
                return PriceFound(table[name], name, source)
    return None


def _names(model: str) -> list[str]:
    """The names a model may be listed under, most exact first."""
    names = [model, model.lower()]
    plain = _VENDOR.sub("", model.lower())
    if plain.startswith("claude-"):
        plain = plain.replace(".", "-")  # OpenRouter writes claude-sonnet-4.5
    names.append(plain)
    names.append(_SNAPSHOT.sub("", plain))
    return list(dict.fromkeys(names))
