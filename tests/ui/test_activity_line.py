"""The live activity line: its text (the time and the key always kept, the label and the progress
cut first), drawn only on a terminal, plain under NO_COLOR, off the screen while a card is up,
and driven by the agent's events in the order a turn sends them."""

from __future__ import annotations

import asyncio
import io
import re

from rich.console import Console

from levelcode.agent.events import (
    AwaitingModel,
    Notice,
    TextDelta,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
    TurnFinished,
)
from levelcode.core.approvals import ApprovalRequest, Choice
from levelcode.core.progress import Progress
from levelcode.ui.activity_line import (
    INTERRUPT_HINT,
    ActivityLine,
    PausingApprover,
    activity_text,
    elapsed_text,
    naming,
)
from levelcode.ui.render import ConsoleSink

COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def terminal(**options: object) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system="standard", **options)  # type: ignore[arg-type]
    return console, out


def test_elapsed_reads_as_seconds_then_minutes_then_hours() -> None:
    assert [elapsed_text(s) for s in (-1, 0, 4.9, 59, 60, 65, 3599, 3600, 7380)] == [
        "0s",
        "0s",
        "4s",
        "59s",
        "1m 00s",
        "1m 05s",
        "59m 59s",
        "1h 00m",
        "2h 03m",
    ]


def test_the_line_says_what_how_long_and_how_to_stop() -> None:
    text = activity_text(
        "⠋", "everything__op", elapsed=4.2, detail="2/5 (40%)", hint=INTERRUPT_HINT, width=80
    )
    assert text == "⠋ everything__op · 4s · 2/5 (40%) · Ctrl-C to interrupt"
    assert activity_text("⠋", "waiting for the model", elapsed=0, detail="", hint="", width=80) == (
        "⠋ waiting for the model · 0s"
    )


def test_a_narrow_terminal_cuts_the_label_and_the_progress_never_the_time_or_the_key() -> None:
    label = "server__" + "x" * 80
    text = activity_text("⠋", label, elapsed=7, detail="3/9 " + "m" * 50, hint=INTERRUPT_HINT, width=50)
    assert len(text) <= 50
    assert text.endswith(" · 7s · Ctrl-C to interrupt")
    assert "…" in text
    roomy = activity_text("⠋", "tool", elapsed=7, detail="3/9 " + "m" * 50, hint=INTERRUPT_HINT, width=50)
    assert roomy.startswith("⠋ tool · 7s · 3/9 m")
    assert roomy.endswith("… · Ctrl-C to interrupt")
    assert len(roomy) == 50


def test_names_are_read_at_each_redraw_and_escaped() -> None:
    starting = ["slow", "bad\x1b[2Jname"]
    label = naming("starting MCP servers", lambda: starting)
    assert label() == "starting MCP servers: slow, bad\\x1b[2Jname"
    starting.clear()
    assert label() == "starting MCP servers: …"


def test_nothing_is_written_when_the_output_is_not_a_terminal() -> None:
    out = io.StringIO()
    line = ActivityLine(Console(file=out, width=80))
    line.show("waiting for the model")
    line.detail("1/2")
    with line.hidden():
        pass
    line.clear()
    assert out.getvalue() == ""


def test_on_a_terminal_it_is_drawn_ticks_and_goes() -> None:
    console, out = terminal()
    clock = Clock()
    line = ActivityLine(console, clock=clock)
    line.show("waiting for the model")  # no event loop: drawn at once
    clock.now += 3
    assert str(line.__rich__()).endswith("waiting for the model · 3s · Ctrl-C to interrupt")
    line.clear()
    assert "waiting for the model" in out.getvalue()
    assert line.activity is None
    assert str(line.__rich__()) == ""


def test_no_color_draws_it_plain() -> None:
    console, out = terminal(no_color=True)
    line = ActivityLine(console, clock=Clock())
    line.show("waiting for the model")
    line.clear()
    assert "waiting for the model" in out.getvalue()
    assert line.__rich__().spans == []
    assert not COLOUR.search(out.getvalue())
    coloured, shown = terminal()
    line = ActivityLine(coloured, clock=Clock())
    line.show("waiting for the model")
    line.clear()
    assert COLOUR.search(shown.getvalue())  # the same line with colours: the check can fail


def test_with_a_loop_a_quick_step_is_never_drawn() -> None:
    async def quick() -> str:
        console, out = terminal()
        line = ActivityLine(console)
        line.show("read_file")
        await asyncio.sleep(0)
        line.clear()
        return out.getvalue()

    assert asyncio.run(quick()) == ""


class Card:
    def __init__(self, line: ActivityLine, clock: Clock) -> None:
        self.line, self.clock = line, clock
        self.live_while_asked: object = "not asked"

    @property
    def interactive(self) -> bool:
        return True

    async def decide(self, request: ApprovalRequest) -> Choice:
        self.live_while_asked = self.line._live
        self.clock.now += 30  # the user reads the card
        return "once"


def test_a_card_takes_the_line_off_and_its_time_does_not_count() -> None:
    console, _out = terminal()
    clock = Clock()
    line = ActivityLine(console, clock=clock)
    line.show("run_command")
    card = Card(line, clock)
    choice = asyncio.run(PausingApprover(card, line).decide(ApprovalRequest(kind="command", title="t")))
    assert choice == "once"
    assert card.live_while_asked is None
    assert line.activity is not None
    assert line.activity.started == clock.now
    line.clear()


def test_the_sink_shows_what_a_turn_waits_for() -> None:
    console, _out = terminal()
    sink = ConsoleSink(console, line=ActivityLine(console, clock=Clock()))

    def label() -> str | None:
        return None if sink.line.activity is None else sink.line.activity.text()

    sink.emit(AwaitingModel())
    assert label() == "waiting for the model"
    sink.emit(Notice("retrying"))
    assert label() == "waiting for the model"  # a notice does not end the wait
    sink.emit(ToolCallEvent("1", "everything__op", "mcp"))
    assert label() == "everything__op"
    sink.emit(ToolProgress("1", "everything__op", Progress(2, 5, "step two")))
    assert sink.line.activity is not None
    assert sink.line.activity.detail == "2/5 (40%) · step two"
    sink.emit(ToolResultEvent("1", "everything__op", False, "done"))
    assert label() is None
    sink.emit(AwaitingModel("compaction"))
    assert label() == "compacting the conversation"
    sink.emit(AwaitingModel())
    sink.emit(TextDelta("Hel"))
    assert label() is None  # the first token ends the wait
    sink.emit(TurnFinished("Hel", "end_turn"))
    assert label() is None


def test_a_label_that_fails_while_read_shows_what_it_said_last() -> None:
    answers = iter(["starting MCP servers: a, b"])

    def label() -> str:
        return next(answers)  # then StopIteration, as a dict changing size under a reader would fail

    line = ActivityLine(Console(file=io.StringIO()), clock=Clock())
    line.show(label)
    assert line.activity is not None
    assert line.activity.text() == "starting MCP servers: a, b"
    assert line.activity.text() == "starting MCP servers: a, b"
