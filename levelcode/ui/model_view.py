"""`/model` in words: the provider's known models with the one in use marked, each with its context
window and price, and the line saying what a switch changed.

Pure: facts in (providers/model_catalog.py), text out.
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.agent.spend import PriceFound
from levelcode.ui.spend_view import price_line, rate_text
from levelcode.ui.visible import visible

MODEL_USAGE = "usage: /model (lists the models) · /model NAME (the next request goes to NAME)"


def _short_price(found: PriceFound | None) -> str:
    if found is None:
        return "price unknown"
    price = found.price
    mine = " (your prices)" if found.source == "settings" else ""
    return f"{rate_text(price.input)} in · {rate_text(price.output)} out{mine}"


def render_models(provider: str, current: str, listed: Sequence[tuple[str, int, PriceFound | None]]) -> str:
    """The models (name, window, price), the one in use first when it is not among them."""
    width = max([len(name) for name, _window, _price in listed] + [10])
    lines = [f"Models of {provider} (* in use; /model NAME switches; per million tokens):"]
    for name, window, found in listed:
        mark = "*" if name == current else " "
        lines.append(f"  {mark} {visible(name):<{width}}  window {window:>9,}  {_short_price(found)}")
    return "\n".join(lines)


def switched_lines(
    provider: str, model: str, window: int, found: PriceFound | None, known: bool
) -> list[str]:
    """What `/model NAME` says once the next request will go to `model`."""
    lines = [f"Model: {provider}/{visible(model)} from the next request on · window {window:,} tokens"]
    lines.append(price_line(model, found).strip())
    if not known:
        lines.append(
            f"LevelCode does not know {visible(model)}: the provider will say whether it serves it; "
            'set "contextWindow" and "prices" in your settings if the window or the price is wrong.'
        )
    return lines
