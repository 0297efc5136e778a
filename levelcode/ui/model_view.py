"""`/model` in words: the provider's known models — or the models a custom base URL serves — with
the one in use marked, each with its context window and price; what is said when a server does
not list them; and the line saying what a switch changed.

Pure: facts in (providers/model_catalog.py), text out.
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.agent.spend import PriceFound
from levelcode.ui.spend_view import price_line, rate_text
from levelcode.ui.visible import visible

PURE = True

MODEL_USAGE = "usage: /model (lists the models) · /model NAME (the next request goes to NAME)"
MAX_SERVED_SHOWN = 100  # a proxy may serve hundreds: the rest is counted, /model NAME takes any
Listed = tuple[str, int | None, PriceFound | None]  # name, window (None: unknown), price


def _short_price(found: PriceFound | None) -> str:
    if found is None:
        return "price unknown"
    price = found.price
    mine = " (your prices)" if found.source == "settings" else ""
    return f"{rate_text(price.input)} in · {rate_text(price.output)} out{mine}"


def render_models(provider: str, current: str, listed: Sequence[Listed]) -> str:
    """The provider's models (name, window, price), as the caller ordered them."""
    return _table(f"Models of {provider}", current, listed)


def render_served(endpoint: str, current: str, listed: Sequence[Listed]) -> str:
    """The models a custom base URL lists, the first `MAX_SERVED_SHOWN`, the rest counted."""
    table = _table(f"Models served by {visible(endpoint)}", current, listed[:MAX_SERVED_SHOWN])
    more = len(listed) - MAX_SERVED_SHOWN
    return table + (f"\n  … and {more:,} more (/model NAME takes any name it serves)" if more > 0 else "")


def unlisted(endpoint: str, current: str, problem: str | None) -> str:
    """What `/model` says when a custom base URL gave no list: it has none, or `problem`."""
    first = (
        f"{visible(endpoint)} does not list the models it serves (it has no /models)."
        if problem is None
        else f"The models {visible(endpoint)} serves could not be listed: {visible(problem)}"
    )
    return f"{first}\nIn use: {visible(current)}; /model NAME switches to another name it serves."


def _table(title: str, current: str, listed: Sequence[Listed]) -> str:
    width = max([len(visible(name)) for name, _window, _price in listed] + [10])
    lines = [f"{title} (* in use; /model NAME switches; per million tokens):"]
    for name, window, found in listed:
        mark = "*" if name == current else " "
        size = f"{window:>9,}" if window is not None else f"{'unknown':>9}"
        lines.append(f"  {mark} {visible(name):<{width}}  window {size}  {_short_price(found)}")
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
