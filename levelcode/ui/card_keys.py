"""When a key on a card is an answer. Only a key pressed once the card has been drawn and armed
counts: keys that were waiting before it was drawn are never looked at here (ui/typeahead.py takes
them off the terminal), and keys arriving while it arms are typing, kept as text for the next
prompt. An answer that widens trust for later takes a second step, answered only by
`CONFIRM_KEY`, a key ordinary typing does not produce.

Pure: keys and times in, a verdict or text out. Never reads the terminal (ui/key_prompt.py does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

PURE = True

Answer = TypeVar("Answer", bound=str)

# How long a card must have had no key before one counts. People typing leave well under half a
# second between keys (about 0.1-0.3 s at 40-100 words a minute), so a sentence typed into a card
# that appeared mid-word is ignored to its end; reading a card takes longer than this, so a person
# answering it does not feel the wait. Each ignored key starts the wait again.
ARMING_SECONDS = 0.5
CONFIRM_KEY = "c-y"  # Ctrl-Y: no word, digit, space, Enter, Tab or Backspace produces it
CONFIRM_KEY_NAME = "Ctrl-Y"
DISMISS_KEYS = ("c-c", "c-d", "escape")  # deny at any moment: denying never needs arming
PASTE = "<bracketed-paste>"
_ERASE = frozenset({"c-h", "backspace"})
_LINE_ENDS = frozenset({"c-m", "c-j", "enter"})


@dataclass
class KeyGate(Generic[Answer]):
    """One step of a card: which keys answer it, and from when. `other`: what any other key
    answers once armed (a confirmation step goes back to its card); None, it is typing."""

    answers: Mapping[str, Answer]
    ready_at: float
    other: Answer | None = None
    typed: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])

    @classmethod
    def drawn(cls, answers: Mapping[str, Answer], now: float, other: Answer | None = None) -> KeyGate[Answer]:
        return cls(dict(answers), now + ARMING_SECONDS, other)

    def armed(self, now: float) -> bool:
        return now >= self.ready_at

    def press(self, key: str, data: str, now: float) -> Answer | None:
        """The answer `key` (with the text `data` it typed) gives at `now`; None when it is
        ignored: it is kept as typing, and the card arms again from now."""
        if self.armed(now):
            answer = self.answers.get(key.lower() if len(key) == 1 else key)
            if answer is not None:
                return answer
            if self.other is not None:
                return self.other
        self.ready_at = now + ARMING_SECONDS
        self.typed.append((key, data))
        return None


def typed_text(keys: Iterable[tuple[str, str]]) -> str:
    """What keys typed as text, on one line: printable characters and pastes, Backspace applied,
    line ends as spaces; every other key (arrows, Ctrl-keys, Escape) dropped."""
    chars: list[str] = []
    for key, data in keys:
        if key == PASTE:
            chars.extend(" ".join(data.splitlines()))
        elif key in _ERASE:
            if chars:
                chars.pop()
        elif key in _LINE_ENDS or key == "c-i":
            chars.append(" ")
        elif len(data) == 1 and data.isprintable():
            chars.append(data)
    return "".join(chars)


def option_keys(options: Iterable[tuple[str, Answer, str]]) -> dict[str, Answer]:
    """The keys of a card's options ((key, answer, label)), each as prompt_toolkit names it."""
    return {key.lower() if len(key) == 1 else key: answer for key, answer, _label in options}
