"""What LevelCode did with a server's own requests while a tool call ran (an elicitation declined
because nobody can answer, a sampling request refused), told to the model with that call's result.

One `CallNotes` per connection, one list of notes per call: a request the call itself answers
(2026-07-28's input rounds, a browser step) is told to that call alone; a request the server sent
on its own while calls were in flight cannot be tied to one of them, so each of them is told. A
note raised while no call runs is told to nobody. Never words anything but the notes it is handed.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from contextvars import ContextVar

from levelcode.core.outcome import ToolOutcome

# The notes of the call whose task is running (a handler awaited inside the call sees them).
_CURRENT: ContextVar[list[str] | None] = ContextVar("levelcode_call_notes", default=None)


class CallNotes:
    def __init__(self) -> None:
        self._in_flight: list[list[str]] = []

    @contextlib.contextmanager
    def collecting(self) -> Iterator[list[str]]:
        """The notes of one call, gathered while the block runs."""
        notes: list[str] = []
        self._in_flight.append(notes)
        token = _CURRENT.set(notes)
        try:
            yield notes
        finally:
            _CURRENT.reset(token)
            self._in_flight.remove(notes)

    def add(self, note: str) -> None:
        current = _CURRENT.get()
        if current is not None and any(notes is current for notes in self._in_flight):
            current.append(note)
            return
        for notes in self._in_flight:
            notes.append(note)


def with_call_notes(outcome: ToolOutcome, notes: list[str]) -> ToolOutcome:
    """The call's result with its notes after it, so the model knows why (an elicitation declined
    headless, a sampling request refused)."""
    if not notes:
        return outcome
    text = "\n".join([outcome.text, *(f"[LevelCode: {note}]" for note in notes)])
    return dataclasses.replace(outcome, text=text)
