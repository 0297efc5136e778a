"""Saved sessions in words: the picker's keys (arrows, numbers typed digit by digit, Enter,
Escape), its rows cut to the width with the prompt made visible, the times, and the recap of a
resumed session's last turns (prompts, final answers, the interrupted note)."""

from __future__ import annotations

import time
from pathlib import Path

from levelcode.agent.session_store import SessionSummary
from levelcode.agent.transcript import INTERRUPTED_NOTE
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, user_text
from levelcode.core.outcome import ToolOutcome
from levelcode.ui.session_view import PickerKeys, picker_row, recap, when


def test_arrows_and_numbers_move_and_enter_or_escape_end() -> None:
    keys = PickerKeys(12)
    assert [keys.press("down"), keys.current] == ["move", 1]
    keys.press("up")
    keys.press("up")
    assert keys.current == 0
    keys.press("1")
    keys.press("2")
    assert keys.current == 11  # "1" then "2": session 12
    keys.press("3")
    assert keys.current == 2  # "123" names none: "3" alone
    keys.press("end")
    assert keys.current == 11
    assert keys.press("enter") == "choose"
    assert keys.press("escape") == "leave"
    assert keys.press("c-c") == "leave"
    keys.press("0")
    assert keys.current == 11  # no session 0


def test_a_row_is_cut_to_the_width_and_shows_no_control_characters() -> None:
    summary = SessionSummary("id", Path("x"), "fix\nthe \x1b[2Jtest " + "x" * 200, "", time.time(), "m", 2)
    row = picker_row(3, summary, 80)
    assert len(row) == 80
    assert row.startswith("  3  just now")
    assert "2 turns" in row
    assert "fix the \\x1b[2Jtest" in row
    assert row.endswith("…")


def test_times_read_as_people_say_them() -> None:
    now = time.mktime((2026, 11, 4, 15, 0, 0, 0, 0, -1))
    assert when(now - 30, now) == "just now"
    assert when(now - 300, now) == "5 min ago"
    assert when(now - 3 * 3600, now) == "3 h ago"
    assert when(now - 20 * 3600, now) == "yesterday 19:00"
    assert when(now - 5 * 86400, now) == "2026-10-30 15:00"


def test_the_recap_shows_the_last_turns_prompts_answers_and_notes() -> None:
    use = ToolUse("t1", "read_file", {"path": "a"})
    messages = [
        user_text("one"),
        Message("assistant", (TextBlock("answer one"),)),
        user_text("two"),
        Message("assistant", (TextBlock("reading"), use)),
        Message("user", (ToolResult("t1", ToolOutcome("hi")), TextBlock(INTERRUPTED_NOTE))),
        Message("assistant", (TextBlock("line\n" * 20),)),
    ]
    messages[4] = Message("user", (*messages[4].content, TextBlock("three")))
    assert recap(messages, turns=2) == [
        ("earlier", "… 1 turn before"),
        ("prompt", "two"),
        ("answer", "reading"),
        ("note", INTERRUPTED_NOTE),
        ("prompt", "three"),
        *[("answer", "line")] * 12,
        ("answer", "… (8 more lines)"),
    ]
