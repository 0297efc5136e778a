"""Keeping this chat's session file up to date: at each of the loop's checkpoints, what changed
since the last save is appended (agent/session_store.py); a resumed session goes on in its own
file, a new chat (`/new`) begins a new one. The file is created by the first save that has a
prompt in it, so a session where nothing was asked leaves nothing behind.

Never raises into the turn: a save that fails is reported once, and the session goes on unsaved
from there (a later line after a failed write could not be trusted to read back).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from levelcode.agent.loop import Agent
from levelcode.agent.session_record import (
    SessionState,
    first_prompt,
    header_json,
    record_json,
)
from levelcode.agent.session_store import (
    SavedSession,
    SessionFile,
    SessionFolder,
    mark_json,
    new_session_id,
    utc_now,
)
from levelcode.agent.spend import Spend, SpendMeter
from levelcode.core.messages import Message, Usage

Item = TypeVar("Item")


class SessionRecorder:
    def __init__(
        self,
        folder: SessionFolder,
        provider: str,
        report: Callable[[str], None],
        resumed: SavedSession | None = None,
    ) -> None:
        self.folder = folder
        self.provider = provider
        self.report = report
        self.id: str | None = None
        self._file: SessionFile | None = None
        self._saved = SessionState()  # what the file holds
        self._failed = False
        # where this chat began in the process's spend (`/new` keeps counting for /cost)
        self._turns_from, self._between_from, self._session_from = 0, Spend(), Spend()
        if resumed is not None:
            self.id, self._file, self._saved = resumed.summary.id, resumed.file, resumed.state

    def save(self, messages: Sequence[Message], spend: SpendMeter, model: str) -> None:
        """Append what changed since the last save (nothing before the first prompt)."""
        if self._failed:
            return
        state = SessionState(
            list(messages),
            spend.turns_so_far()[self._turns_from :],
            _since(spend.between, self._between_from),
            _since(spend.session, self._session_from),
            model,
        )
        try:
            if self._file is None:
                if not state.messages:
                    return
                self._begin(state)
            assert self._file is not None
            saved = self._saved
            messages_at = _changed_from(saved.messages, state.messages)
            record = record_json(state, messages_at, _changed_from(saved.turns, state.turns))
            self._file.append(record, mark_json(model, len(state.turns)))
        except OSError as exc:
            self._failed = True
            self.report(f"this session is no longer saved: {exc}")
            return
        self._saved = state

    def new_chat(self, spend: SpendMeter) -> None:
        """`/new`: this session's file is closed; the next save begins another, whose figures
        start from here."""
        self.close()
        self.id, self._saved, self._failed = None, SessionState(), False
        self._turns_from = len(spend.turns_so_far())
        self._between_from, self._session_from = spend.between, spend.session

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _begin(self, state: SessionState) -> None:
        session_id = new_session_id()
        workspace = str(self.folder.workspace)
        header = header_json(session_id, workspace, utc_now(), self.provider, first_prompt(state.messages))
        self._file = self.folder.create(header, session_id)
        self.id = session_id


def _changed_from(saved: Sequence[Item], now: Sequence[Item]) -> int | None:
    """The first index where `now` differs from `saved` (items compared by identity: the
    transcript replaces a message, never changes one); None when nothing changed."""
    for index, (old, new) in enumerate(zip(saved, now, strict=False)):
        if old is not new:
            return index
    return None if len(saved) == len(now) else min(len(saved), len(now))


def _since(total: Spend, earlier: Spend) -> Spend:
    """What `total` gained after it was `earlier` (unknown cost stays unknown)."""
    now, then = total.usage, earlier.usage
    usage = Usage(
        now.input_tokens - then.input_tokens,
        now.output_tokens - then.output_tokens,
        now.cache_read_input_tokens - then.cache_read_input_tokens,
        now.cache_creation_input_tokens - then.cache_creation_input_tokens,
    )
    cost = None if total.cost is None or earlier.cost is None else max(0.0, total.cost - earlier.cost)
    return Spend(usage, cost, total.requests - earlier.requests)


def restore(agent: Agent, resumed: SavedSession) -> None:
    """Put a saved session's conversation and figures into `agent` (its model was chosen at start)."""
    state = resumed.state
    agent.transcript.messages = list(resumed.messages)
    agent.spend.resume(state.turns, state.between, state.session)
