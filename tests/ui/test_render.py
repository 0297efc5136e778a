"""What the REPL and `levelcode run` print of agent events. Load-bearing direction: text from a
server (a tool result, an error, a notice with its stderr) or from the model never reaches the
console with a control sequence in it — not the OSC 52 clipboard write, not an erase or colour
sequence, not CR, BS, BEL, a bidi override or a zero-width character. The second corpus: the
text is still shown (escaped), line breaks kept, and `--json` keeps the exact text."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from levelcode.agent.events import (
    AgentEvent,
    Notice,
    TextDelta,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
    TurnFinished,
)
from levelcode.core.outcome import MediaInfo, SavedResult
from levelcode.core.progress import Progress, TaskProgress
from levelcode.ui.render import ConsoleSink, JsonLinesSink, progress_detail

ATTACK = (
    "start \x1b]52;c;Y3VybCB8IHNo\x07\x1b[2K\x1b[1A\x1b[2J\x1b[38;5;196mred\x1b[0m "
    "fake\rreal abc\x08\x08\x08xyz \u202egnp.exe zero\u200bwidth\ufeff \x9b2J end"
)
# Rich's own live view writes CR and erase-line on a terminal, so there the server's CR is checked
# in place ("fake\rreal"); in a pipe no ESC or CR may appear at all.
RAW_PIECES = (
    "\x1b]52",
    "\x1b[2J",
    "\x1b[38;5;196m",
    "\x07",
    "\x08",
    "fake\rreal",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\x9b",
)

EVENTS: list[AgentEvent] = [
    ToolCallEvent("1", "run_command", "builtin", {"command": ATTACK}),
    ToolProgress("1", "run_command", Progress(1, 3, ATTACK)),
    ToolResultEvent("1", "run_command", False, ATTACK + "\nsecond line"),
    ToolResultEvent("2", "fault__x", True, f"ERROR: {ATTACK}\nlast stderr lines:\n{ATTACK}"),
    Notice(f"MCP server 'broken' failed: {ATTACK}"),
    TextDelta(f"The server said: {ATTACK}\n\n"),
    TextDelta("and again: " + ATTACK),
    TurnFinished("done", "stop"),
]


def _print_all(terminal: bool) -> str:
    out = io.StringIO()
    console = Console(
        file=out, force_terminal=terminal, width=100, color_system="standard" if terminal else None
    )
    sink = ConsoleSink(console)
    for event in EVENTS:
        sink.emit(event)
    return out.getvalue()


@pytest.mark.parametrize("terminal", [False, True])
def test_console_sink_never_prints_a_control_sequence_from_third_party_text(terminal: bool) -> None:
    shown = _print_all(terminal)
    for piece in RAW_PIECES:
        assert piece not in shown, f"{piece!r} reached the console"
    if not terminal:
        assert "\x1b" not in shown
        assert "\r" not in shown
    assert shown.count("\\x1b]52;c;Y3VybCB8IHNo\\x07") >= 5  # call, result, error, notice, the model's text
    assert "\\u202egnp.exe" in shown


def test_error_previews_keep_their_line_breaks() -> None:
    shown = _print_all(False)
    assert "last stderr lines:\n" in shown


def test_json_lines_keep_the_exact_text() -> None:
    out = io.StringIO()
    sink = JsonLinesSink(out)
    sink.emit(ToolResultEvent("1", "fault__x", False, ATTACK))
    (record,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert record["text"] == ATTACK
    assert "\x1b" not in out.getvalue()  # JSON writes control characters as \u escapes


SHOT = ToolResultEvent(
    "3",
    "browser__shot",
    False,
    "[image 1: image/png, 2.0 KB, attached]",
    (MediaInfo("image", "image/png", 2048),),
)


def test_media_show_as_one_summary_line_never_data() -> None:
    out = io.StringIO()
    ConsoleSink(Console(file=out, width=120)).emit(SHOT)
    assert "· 1 image (image/png 2.0 KB)" in out.getvalue()
    lines = io.StringIO()
    JsonLinesSink(lines).emit(SHOT)
    (record,) = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert record["media"] == [{"type": "image", "mimeType": "image/png", "bytes": 2048}]


def test_progress_is_a_json_event_and_nothing_in_a_pipe() -> None:
    lines = io.StringIO()
    JsonLinesSink(lines).emit(ToolProgress("7", "s__long", Progress(2, 4, "half")))
    assert json.loads(lines.getvalue()) == {
        "type": "progress",
        "id": "7",
        "name": "s__long",
        "progress": 2,
        "total": 4,
        "message": "half",
    }
    piped = io.StringIO()
    ConsoleSink(Console(file=piped, force_terminal=False)).emit(ToolProgress("7", "s__long", Progress(2, 4)))
    assert piped.getvalue() == ""


CUT = ToolResultEvent(
    "4",
    "s__dump",
    False,
    "x" * 100 + "\n\n[result cut: …]",
    saved=SavedResult("/state/results/r.txt", 2_411_724),
)


def test_a_cut_result_says_where_it_was_saved_on_the_activity_line_and_in_json() -> None:
    out = io.StringIO()
    ConsoleSink(Console(file=out, width=160)).emit(CUT)
    assert "· result of 2.3 MB saved to /state/results/r.txt" in out.getvalue()
    lines = io.StringIO()
    JsonLinesSink(lines).emit(CUT)
    (record,) = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert record["saved"] == {"path": "/state/results/r.txt", "bytes": 2_411_724}


def test_a_tasks_status_shows_on_the_live_line_and_in_json() -> None:
    event = ToolProgress(
        "8", "s__deploy", Progress(None, None, "step 2 of 4", TaskProgress("t-1", "working"))
    )
    assert progress_detail(event) == "task working · step 2 of 4"
    asking = ToolProgress("8", "s__deploy", Progress(None, None, None, TaskProgress("t-1", "input_required")))
    assert progress_detail(asking) == "task input required"
    counted = ToolProgress("8", "s__deploy", Progress(2, 4, "step 3 of 4", TaskProgress("t-1", "working")))
    assert progress_detail(counted) == "2/4 (50%) · task working · step 3 of 4"
    lines = io.StringIO()
    JsonLinesSink(lines).emit(event)
    JsonLinesSink(lines).emit(counted)
    first, second = (json.loads(line) for line in lines.getvalue().splitlines())
    assert first["task"] == {"id": "t-1", "status": "working"}
    assert (first["progress"], first["total"]) == (None, None)  # nothing reported: no made-up 0
    assert (second["progress"], second["total"]) == (2, 4)
