"""`read_key` with prompt_toolkit reading a pipe. Load-bearing direction: keys waiting before the
card is drawn are never an answer (they are kept for the next prompt) — a Ctrl-D, Escape or Ctrl-C
among them denies nothing either — and an answer listed for
confirmation is given only with Ctrl-Y; any other key there goes back to the card. The second
corpus: keys sent once the card is armed answer it; Ctrl-C denies."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import PipeInput

from levelcode.ui import card_keys, typeahead
from levelcode.ui.key_prompt import read_key
from tests.support.key_pipe import type_later

OPTIONS = [("y", "once", "approve"), ("n", "deny", "deny")]


async def answered(
    pipe: PipeInput, *later: str, confirm: dict[str, str] | None = None, armed: bool = True
) -> str:
    """`read_key`'s answer when each of `later` is typed once the card step then drawn is armed
    (`armed` False: as soon as it is drawn)."""
    type_later(pipe, *later, armed=armed)
    return await read_key(OPTIONS, "deny", confirm=confirm)


def test_keys_waiting_before_the_card_are_kept_not_answers(keys: PipeInput) -> None:
    keys.send_text("yes please")
    assert asyncio.run(answered(keys, "n")) == "deny"
    assert typeahead.take_kept() == "yes please"


def test_a_key_once_armed_answers(keys: PipeInput) -> None:
    assert asyncio.run(answered(keys, "y")) == "once"


def test_a_confirmed_answer_takes_ctrl_y(keys: PipeInput) -> None:
    confirm = {"once": "remembered"}
    assert asyncio.run(answered(keys, "y", "\x19", confirm=confirm)) == "once"


def test_any_other_key_on_the_confirmation_goes_back_to_the_card(keys: PipeInput) -> None:
    confirm = {"once": "remembered"}
    assert asyncio.run(answered(keys, "y", "yes", "n", confirm=confirm)) == "deny"
    assert typeahead.take_kept() == "es"  # after the `y` that went back, the rest was typing


def test_ctrl_c_denies_even_while_the_card_arms(keys: PipeInput, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(card_keys, "ARMING_SECONDS", 60.0)
    assert asyncio.run(answered(keys, "\x03", armed=False)) == "deny"


@pytest.mark.parametrize("ahead", ["\x04", "\x1b", "\x03"], ids=["ctrl-d", "escape", "ctrl-c"])
def test_a_denying_key_typed_ahead_counts_for_nothing(keys: PipeInput, ahead: str) -> None:
    keys.send_text(ahead)
    assert asyncio.run(answered(keys, "y")) == "once"
