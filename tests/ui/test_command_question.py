"""A command's yes/no (`mcp import`) read from a pipe. Load-bearing direction: keys waiting before
the question is drawn never answer it — not even `y`, Ctrl-Y and Enter — and a `y` pressed once it
is armed still needs Ctrl-Y. The second corpus: `y` then Ctrl-Y, pressed once it is armed, is yes."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import PipeInput

from levelcode.ui import typeahead
from levelcode.ui.command_question import DROPPED, Question, ask_async
from tests.support.key_pipe import type_later

QUESTION = Question("Add 1 server to settings.json?", "add them", "add nothing", "kept in your settings")


async def answered(pipe: PipeInput, *later: str) -> bool:
    """The question's answer when each of `later` is typed once the step then drawn is armed."""
    type_later(pipe, *later)
    return await ask_async(QUESTION)


def test_keys_typed_before_the_question_answer_nothing_and_are_said_to(
    keys: PipeInput, capsys: pytest.CaptureFixture[str]
) -> None:
    keys.send_text("y\x19\r")
    assert asyncio.run(answered(keys, "n")) is False
    assert DROPPED in capsys.readouterr().out
    assert typeahead.take_kept() == ""  # a command has no next prompt: nothing is left for one


def test_yes_takes_y_then_ctrl_y_once_armed(keys: PipeInput) -> None:
    assert asyncio.run(answered(keys, "y", "\x19")) is True


def test_y_alone_is_not_yes(keys: PipeInput) -> None:
    assert asyncio.run(answered(keys, "y", "\r", "n")) is False
