"""The models LevelCode knows, per provider, and what switching to one changes (`/model`, a resumed
session's model): the model name, and with it the context window and the price.

Pure. The names come from the price table (providers/prices.py) and the user's own `"prices"`;
the windows from providers/context_windows.py. A name LevelCode does not know is still a model:
the provider decides whether it serves it (a local server's `qwen3-coder:30b`, a newer release).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from levelcode.policy.prices import Price
from levelcode.providers.base import ProviderName, ProviderSettings
from levelcode.providers.context_windows import context_window
from levelcode.providers.prices import KNOWN_PRICES, PriceFound, find_price

PURE = True

# the model families each provider's own API serves, by name prefix
_FAMILIES: Mapping[ProviderName, tuple[str, ...]] = {
    "anthropic": ("claude-",),
    "openai": ("gpt-", "o1", "o3", "o4"),
}


@dataclass(frozen=True)
class ModelFacts:
    """What a model means for a session: how much it reads, and what it costs."""

    name: str
    context_window: int
    price: PriceFound | None
    known: bool  # in the price table or the user's prices for this provider


def settings_for_model(
    settings: ProviderSettings, model: str, configured_window: int | None
) -> ProviderSettings:
    """The same provider, key and URL, talking to `model` (its own context window)."""
    return dataclasses.replace(settings, model=model, context_window=context_window(model, configured_window))


def family_provider(model: str) -> ProviderName | None:
    """The provider whose own API serves `model`'s family, when the name says so."""
    plain = model.lower().split("/", 1)[-1]
    for provider, prefixes in _FAMILIES.items():
        if plain.startswith(prefixes):
            return provider
    return None


def known_models(provider: ProviderName, user_prices: Mapping[str, Price]) -> list[str]:
    """The provider's models from the price table (newest names first, as listed), then the
    models the user priced (any provider: a local or proxied model is priced there)."""
    listed = [name for name in KNOWN_PRICES if family_provider(name) == provider]
    return list(dict.fromkeys([*listed, *user_prices]))


def model_facts(
    model: str, provider: ProviderName, configured_window: int | None, user_prices: Mapping[str, Price]
) -> ModelFacts:
    price = find_price(model, user_prices)
    known = price is not None and (price.source == "settings" or family_provider(model) == provider)
    return ModelFacts(model, context_window(model, configured_window), price, known)
