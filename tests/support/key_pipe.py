"""Keys for prompt_toolkit through a pipe: a card or a question reads them as from a terminal."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from levelcode.ui import card_keys, typeahead

SETTLE = 0.05  # seconds for the rest of a text of several keys to be read once its first is
_GATES: list[card_keys.KeyGate[Any]] = []  # every card step drawn, in order
_TYPING: set[asyncio.Task[None]] = set()  # the typists running, kept from the collector


def key_pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[PipeInput]:
    """The pipe every prompt reads from, with a card's arming shortened, nothing kept before, and
    each card step drawn noted (for `type_later`)."""
    monkeypatch.setattr(card_keys, "ARMING_SECONDS", 0.02)
    _GATES.clear()
    drawn = card_keys.KeyGate.drawn.__func__  # type: ignore[attr-defined]

    def noted(cls: type[card_keys.KeyGate[Any]], *args: Any, **kwargs: Any) -> card_keys.KeyGate[Any]:
        gate: card_keys.KeyGate[Any] = drawn(cls, *args, **kwargs)
        _GATES.append(gate)
        return gate

    monkeypatch.setattr(card_keys.KeyGate, "drawn", classmethod(noted))
    typeahead.take_kept()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        yield pipe


def type_later(pipe: PipeInput, *texts: str, armed: bool = True) -> None:
    """Type each of `texts`, from the running loop, once the key before it has been read and the
    card step now drawn is armed (`armed` False: as soon as it is drawn). Waiting on the card, not
    on the clock, so that a slow machine never turns an answer into type-ahead."""
    task = asyncio.get_running_loop().create_task(_type_in_turn(pipe, texts, armed))
    _TYPING.add(task)
    task.add_done_callback(_TYPING.discard)


async def _type_in_turn(pipe: PipeInput, texts: tuple[str, ...], armed: bool) -> None:
    last: tuple[int, int] | None = None  # the step and its typed keys when the last text was sent
    for text in texts:
        await _until(lambda sent=last: bool(_GATES) and _state() != sent)
        if last is not None:
            await asyncio.sleep(SETTLE)
        await _until(lambda: not armed or _GATES[-1].armed(time.monotonic()))
        last = _state()
        pipe.send_text(text)


def _state() -> tuple[int, int]:
    return len(_GATES), len(_GATES[-1].typed)


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.005)
