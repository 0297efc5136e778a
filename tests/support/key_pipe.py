"""Keys for prompt_toolkit through a pipe: a card or a question reads them as from a terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from levelcode.ui import card_keys, typeahead

LATER = 0.3  # seconds: well after the (shortened) arming of what is drawn meanwhile


def key_pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[PipeInput]:
    """The pipe every prompt reads from, with a card's arming shortened and nothing kept before."""
    monkeypatch.setattr(card_keys, "ARMING_SECONDS", 0.02)
    typeahead.take_kept()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        yield pipe


def type_later(pipe: PipeInput, *texts: str) -> None:
    """Type each of `texts` LATER seconds after the one before, from the running loop."""
    loop = asyncio.get_running_loop()
    for step, text in enumerate(texts, 1):
        loop.call_later(LATER * step, pipe.send_text, text)
