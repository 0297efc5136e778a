"""Saved sessions in words: the picker's rows and the keys that move through them, the line that
says which session goes on, and the recap of its last turns printed before the prompt.

No I/O: summaries, messages and times in, text out. Prompts and answers are the user's and the
model's text; each line passes through `visible` before it reaches a terminal.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.console import Group
from rich.text import Text

from levelcode.agent.compaction import FALLBACK_HEADER, SUMMARY_HEADER
from levelcode.agent.session_store import SavedSession, SessionSummary
from levelcode.agent.transcript import TURN_END_NOTES
from levelcode.core.messages import Message, TextBlock
from levelcode.ui.visible import visible

RECAP_TURNS = 3  # the last turns shown when a session goes on
RECAP_PROMPT_LINES = 3
RECAP_ANSWER_LINES = 12
PICKER_HINT = "↑/↓ or a number to choose · Enter resumes · Esc leaves"


def when(modified: float, now: float | None = None) -> str:
    """`just now`, `5 min ago`, `3 h ago`, `yesterday 14:02`, `2026-11-02 14:02` (local time)."""
    now = time.time() if now is None else now
    age = max(0.0, now - modified)
    if age < 60:
        return "just now"
    if age < 3600:
        return f"{int(age // 60)} min ago"
    local, today = time.localtime(modified), time.localtime(now)
    if age < 12 * 3600 or local[:3] == today[:3]:
        return f"{int(age // 3600)} h ago"
    if local[:3] == time.localtime(now - 86400)[:3]:
        return time.strftime("yesterday %H:%M", local)
    return time.strftime("%Y-%m-%d %H:%M", local)


def turns_text(count: int) -> str:
    return f"{count} turn{'s' if count != 1 else ''}"


def picker_row(number: int, summary: SessionSummary, width: int, now: float | None = None) -> str:
    """`  3  2 h ago          4 turns  claude-sonnet-5-5   fix the failing test in …`, cut to `width`."""
    prompt = visible(" ".join(summary.first_prompt.split())) or "(no prompt)"
    head = f"{number:>3}  {when(summary.modified, now):<17} {turns_text(summary.turns):>9}  "
    head += f"{visible(summary.model):<20} "
    room = max(10, width - len(head))
    return head + (prompt if len(prompt) <= room else prompt[: room - 1] + "…")


@dataclass
class PickerKeys:
    """Where the highlight is in a list of `count` sessions, moved by arrows and numbers. Digits
    typed one after another make one number while it names a session (`1`, `2` → 12)."""

    count: int
    current: int = 0
    typed: str = ""

    def press(self, key: str) -> Literal["move", "choose", "leave"]:
        if key in ("escape", "c-c", "c-d", "q"):
            return "leave"
        if key in ("enter", "c-m", "c-j"):
            return "choose"
        if key.isdigit():
            self._number(key)
            return "move"
        self.typed = ""
        steps = {"up": -1, "down": 1, "pageup": -10, "pagedown": 10, "home": -self.count, "end": self.count}
        self.current = min(self.count - 1, max(0, self.current + steps.get(key, 0)))
        return "move"

    def _number(self, digit: str) -> None:
        for typed in (self.typed + digit, digit):
            if typed.isdigit() and 1 <= int(typed) <= self.count:
                self.typed, self.current = typed, int(typed) - 1
                return
        self.typed = ""


def resumed_line(summary: SessionSummary, model_now: str) -> str:
    """`Resumed session 20261104-153012-a1b2c3 · 4 turns · claude-sonnet-5-5 · 2 h ago`."""
    line = (
        f"Resumed session {summary.id} · {turns_text(summary.turns)} · {model_now} · {when(summary.modified)}"
    )
    if summary.model and summary.model != model_now:
        line += f" (it used {summary.model}; /model {summary.model} goes back to it)"
    return visible(line)


RecapKind = Literal["prompt", "answer", "note", "earlier"]
_RECAP_STYLES: dict[RecapKind, str] = {"prompt": "bold", "answer": "", "note": "yellow", "earlier": "dim"}


def render_recap(saved: SavedSession, model_now: str) -> Group:
    """Which session goes on, and its last turns, for the REPL to print above its first prompt."""
    rows = [Text(resumed_line(saved.summary, model_now), style="green")]
    for kind, line in recap(saved.messages):
        rows.append(Text(("> " if kind == "prompt" else "  ") + line, style=_RECAP_STYLES[kind]))
    return Group(*rows)


def saved_line(session_id: str) -> str:
    """What the REPL says as it ends, when the session was saved."""
    return f"Session saved: levelcode -c goes on with it (or levelcode -r {session_id})"


def recap(messages: Sequence[Message], turns: int = RECAP_TURNS) -> list[tuple[RecapKind, str]]:
    """The last `turns` turns as (kind, line): each prompt, then its final answer or its note."""
    shown: list[list[tuple[RecapKind, str]]] = []
    for message in messages:
        for block in message.content:
            if not isinstance(block, TextBlock) or not block.text.strip():
                continue
            if message.role == "assistant":
                if shown:
                    shown[-1] = [*(line for line in shown[-1] if line[0] != "answer"), *_answer(block.text)]
            elif _is_note(block.text):
                if shown and block.text in TURN_END_NOTES:
                    shown[-1].append(("note", block.text))
            else:
                shown.append(_cut("prompt", block.text, RECAP_PROMPT_LINES))
    earlier = len(shown) - turns
    lines: list[tuple[RecapKind, str]] = (
        [("earlier", f"… {turns_text(earlier)} before")] if earlier > 0 else []
    )
    for turn in shown[-turns:]:
        lines.extend(turn)
    return lines


def _answer(text: str) -> list[tuple[RecapKind, str]]:
    return _cut("answer", text, RECAP_ANSWER_LINES)


def _cut(kind: RecapKind, text: str, limit: int) -> list[tuple[RecapKind, str]]:
    rows = text.strip().splitlines()
    kept = [(kind, visible(row)) for row in rows[:limit]]
    if len(rows) > limit:
        kept.append((kind, f"… ({len(rows) - limit} more lines)"))
    return kept


def _is_note(text: str) -> bool:
    return text in TURN_END_NOTES or text.startswith((SUMMARY_HEADER, FALLBACK_HEADER))
