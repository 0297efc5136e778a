"""A yes/no that a command asks before it grants something (`levelcode mcp import` writing servers
that then start without asking), answered by the rules of a card (ui/key_prompt.py): keys typed
before the question is drawn, or while it arms, count for nothing, and yes takes Ctrl-Y after it.

I/O: draws on the terminal and reads keys. A caller without a terminal never asks: it denies and
names the flag that answers instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from levelcode.ui import typeahead
from levelcode.ui.key_prompt import read_key

DROPPED = "(keys typed before the question was ready were not taken as answers)"
_YES, _NO = "yes", "no"


@dataclass(frozen=True)
class Question:
    """`asked`: the question itself; `yes`/`no`: what each answer does; `kept`: what a yes keeps
    granting afterwards, shown on its Ctrl-Y step."""

    asked: str
    yes: str
    no: str
    kept: str


def ask(question: Question) -> bool:
    """True only for `y` pressed once the question is armed, then Ctrl-Y; anything else is no."""
    return asyncio.run(ask_async(question))


async def ask_async(question: Question) -> bool:
    before = typeahead.kept_chars()
    options = [("y", _YES, question.yes), ("n", _NO, question.no)]
    answer = await read_key(options, _NO, (question.asked,), {_YES: question.kept})
    if typeahead.kept_chars() > before:
        typeahead.take_kept()  # a command has no next prompt to give the text back to
        print(DROPPED)
    return answer == _YES
