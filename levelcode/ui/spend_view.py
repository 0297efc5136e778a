"""Tokens and cost in words: the dim line after each turn in the REPL, and `/cost`'s table (plain
text, so it reads the same in a terminal and in a pipe). Pure: the numbers come from
agent/spend.py, the prices from providers/prices.py."""

from __future__ import annotations

from levelcode.agent.spend import PriceFound, Spend, SpendMeter
from levelcode.ui.visible import visible

PURE = True

MAX_TURN_ROWS = 20  # /cost lists the newest turns; the session row counts them all
SMALLEST_SHOWN = 0.0001  # dollars: below it a cost is `<$0.0001`, never a `$0.0000` that hides it
EARLIER_UNPRICED = "an earlier request went to a model with no known price"


def usd(cost: float) -> str:
    """`$1.25`; below a dollar four places (`$0.0213`, `$0.0042`), so a cheap turn is not
    `$0.00`; below a hundredth of a cent `<$0.0001`."""
    if cost >= 1 or cost == 0:
        return f"${cost:,.2f}"
    return f"${cost:.4f}" if cost >= SMALLEST_SHOWN else f"<${SMALLEST_SHOWN}"


def no_price_note(model: str) -> str:
    """What a cost says when `model` has no price, naming the settings key that gives it one."""
    return f'{visible(model)} has no known price; set it under "prices" in your settings.json'


def turn_line(turn: Spend, session: Spend, model: str) -> str:
    """`tokens: 1,234 in · 10,240 cache read · 321 out · $0.0213 (session $0.1234)`; the turn's
    cost unknown when `model` has no price, the session's when an earlier request's had none."""
    usage = turn.usage
    parts = [f"{usage.input_tokens:,} in"]
    if usage.cache_read_input_tokens:
        parts.append(f"{usage.cache_read_input_tokens:,} cache read")
    if usage.cache_creation_input_tokens:
        parts.append(f"{usage.cache_creation_input_tokens:,} cache write")
    parts.append(f"{usage.output_tokens:,} out")
    if turn.cost is None:
        parts.append(f"cost unknown: {no_price_note(model)}")
    elif session.cost is None:
        parts.append(f"{usd(turn.cost)} (session total unknown: {EARLIER_UNPRICED})")
    else:
        parts.append(f"{usd(turn.cost)} (session {usd(session.cost)})")
    return "tokens: " + " · ".join(parts)


def _row(label: str, spend: Spend) -> str:
    usage = spend.usage
    cost = usd(spend.cost) if spend.cost is not None else "unknown"
    return (
        f"  {label:<10}{usage.input_tokens:>12,}{usage.cache_read_input_tokens:>13,}"
        f"{usage.cache_creation_input_tokens:>13,}{usage.output_tokens:>10,}{cost:>12}"
    )


def rate_text(dollars: float) -> str:
    """`$2.00`, `$0.075`: two places at least, more where the price has them."""
    whole, _, cents = f"{dollars:.4f}".rstrip("0").partition(".")
    return f"${whole}.{cents:0<2}"


def price_line(model: str, found: PriceFound | None) -> str:
    if found is None:
        return f"  {no_price_note(model)}"
    price = found.price
    where = "your settings" if found.source == "settings" else "the provider's list price"
    return (
        f"  per million tokens ({where}): input {rate_text(price.input)} · cache read "
        f"{rate_text(price.cache_read)} · cache write {rate_text(price.cache_write)} · output "
        f"{rate_text(price.output)}"
    )


def render_spend(meter: SpendMeter, model: str) -> str:
    """`/cost`: each turn's tokens and cost (the newest turns), requests between turns, the session."""
    lines = [f"Tokens and cost ({visible(model)})", price_line(model, meter.price(model))]
    lines.append(f"  {'':<10}{'input':>12}{'cache read':>13}{'cache write':>13}{'output':>10}{'cost':>12}")
    shown = meter.turns[-MAX_TURN_ROWS:]
    first = len(meter.turns) - len(shown) + 1
    if first > 1:
        lines.append(f"  … {first - 1} earlier turns")
    lines += [_row(f"turn {number}", spend) for number, spend in enumerate(shown, start=first)]
    if meter.between.requests:
        lines.append(_row("/compact", meter.between))
    lines.append(_row("session", meter.session))
    if not meter.session.requests:
        lines.append("  No requests yet.")
    return "\n".join(lines)
