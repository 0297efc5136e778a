"""What this session's model requests cost: tokens as the API reported them, and dollars by the
price of the model each request went to (providers/prices.py), per turn and for the session.

Pure bookkeeping: the loop records each finished request; nothing here does I/O. A request the
user cut short is not counted (the API sends its count only at the end), and once any request's
model has no known price the total's cost is unknown rather than too low.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from levelcode.core.messages import Usage
from levelcode.policy.prices import Price
from levelcode.providers.prices import PriceFound, find_price

PURE = True

# PriceFound is passed on to the surfaces, which may not import providers
__all__ = ["PriceFound", "Spend", "SpendMeter", "SpendReport"]


@dataclass(frozen=True)
class Spend:
    usage: Usage = field(default_factory=Usage)
    cost: float | None = 0.0  # US dollars; None: a request's model has no known price
    requests: int = 0

    def plus(self, usage: Usage, price: Price | None) -> Spend:
        cost = None if self.cost is None or price is None else self.cost + price.cost(usage)
        return Spend(self.usage + usage, cost, self.requests + 1)


@dataclass(frozen=True)
class SpendReport:
    """What a finished turn cost, and the session so far, for the surfaces."""

    model: str
    turn: Spend
    session: Spend


class SpendMeter:
    """Each turn's spend, the requests made between turns (`/compact`), and the session's."""

    def __init__(self, user_prices: Mapping[str, Price] | None = None) -> None:
        self.user_prices: Mapping[str, Price] = user_prices or {}
        self.turns: list[Spend] = []  # finished turns, oldest first
        self.turn = Spend()  # the turn under way (or the last one, once it ended)
        self.between = Spend()  # requests made outside any turn
        self.session = Spend()
        self._in_turn = False

    def price(self, model: str) -> PriceFound | None:
        return find_price(model, self.user_prices)

    def begin_turn(self) -> None:
        self.turn = Spend()
        self._in_turn = True

    def end_turn(self) -> None:
        if self._in_turn:
            self.turns.append(self.turn)
        self._in_turn = False

    def turns_so_far(self) -> list[Spend]:
        """Every turn's spend, the one under way included (what a saved session keeps)."""
        return [*self.turns, self.turn] if self._in_turn else list(self.turns)

    def resume(self, turns: list[Spend], between: Spend, session: Spend) -> None:
        """Carry on from a saved session's figures: its turns stay listed, its total goes on."""
        self.turns, self.between, self.session = list(turns), between, session
        self.turn, self._in_turn = Spend(), False

    def record(self, model: str, usage: Usage | None) -> None:
        """One finished request to `model` (no usage reported: nothing to count)."""
        if usage is None:
            return
        found = self.price(model)
        price = found.price if found is not None else None
        self.session = self.session.plus(usage, price)
        if self._in_turn:
            self.turn = self.turn.plus(usage, price)
        else:
            self.between = self.between.plus(usage, price)
