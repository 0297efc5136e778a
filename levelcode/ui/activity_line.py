"""The one live line saying that LevelCode is working: what it waits for (the model, a running
tool, MCP servers starting), for how long, and the key that interrupts it, e.g.

    ⠋ everything__trigger-long-running-operation · 4s · 2/5 (40%) · Ctrl-C to interrupt

Drawn only on a terminal, below everything else, and never at the same time as anything else:
whatever prints (an answer streaming, a notice, a card, a form) takes it off first, and a step
that ends within `SHOW_AFTER_SECONDS` never draws it at all. Under NO_COLOR it is plain text.
On a pipe or a file it writes nothing, ever.

`activity_text` is pure (tested alone); `ActivityLine` draws it with rich's Live, refreshed from
rich's thread; `PausingApprover` keeps it off the screen while a card is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from levelcode.core.approvals import ApprovalRequest, Approver, Choice
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from rich.live import Live

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_FRAMES = "-\\|/"  # a terminal that cannot show the braille dots
FRAME_SECONDS = 0.08
REFRESH_PER_SECOND = 12.5
SHOW_AFTER_SECONDS = 0.25  # a quicker step (a file read, a token at once) shows no line at all
INTERRUPT_HINT = "Ctrl-C to interrupt"
SKIP_HINT = "Ctrl-C to skip"
SEPARATOR = " · "

Label = str | Callable[[], str]  # a callable is asked at each redraw (names still starting)


def naming(doing: str, names: Callable[[], Sequence[str]]) -> Callable[[], str]:
    """A label saying `doing: a, b`, with the names of the moment at each redraw (servers still
    starting); names are configuration keys, escaped like any other text shown."""
    return lambda: f"{doing}: {visible(', '.join(names())) or '…'}"


def elapsed_text(seconds: float) -> str:
    """`4s`, `1m 05s`, `2h 03m`: whole seconds, never negative."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def activity_text(frame: str, label: str, *, elapsed: float, detail: str, hint: str, width: int) -> str:
    """The line as shown in `width` cells: the label and the detail are cut (with `…`) before the
    elapsed time or the key are, so the line always says how long and how to stop it."""
    fixed = [elapsed_text(elapsed), *([hint] if hint else [])]
    budget = width - cell_len(frame + " ") - sum(cell_len(SEPARATOR + part) for part in fixed)
    label = _cut(label, max(budget, 1))
    room = budget - cell_len(label) - cell_len(SEPARATOR)
    parts = [label, fixed[0]]
    if detail and room >= 4:
        parts.append(_cut(detail, room))
    return f"{frame} " + SEPARATOR.join([*parts, *fixed[1:]])


def _cut(text: str, cells: int) -> str:
    if cell_len(text) <= cells:
        return text
    kept = ""
    for char in text:
        if cell_len(kept + char) > cells - 1:
            break
        kept += char
    return kept + "…"


@dataclass
class Activity:
    label: Label
    hint: str
    started: float
    detail: str = ""
    last_text: str = ""

    def text(self) -> str:
        """The label now. A callable is asked from rich's refresh thread while the event loop may
        be changing what it reads: if that fails, the text it gave last time is shown again."""
        if not callable(self.label):
            return self.label
        with contextlib.suppress(Exception):  # e.g. a dict changed size while read: asked again next time
            self.last_text = self.label()
        return self.last_text


class ActivityLine:
    """Shows one `Activity` at a time on `console`, while nothing else is being shown."""

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self.clock = clock
        self.activity: Activity | None = None
        self._live: Live | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._hidden = 0  # how many `hidden()` blocks are open
        utf8 = (console.encoding or "").lower().replace("-", "").startswith("utf")
        self.frames = FRAMES if utf8 else ASCII_FRAMES

    @property
    def drawable(self) -> bool:
        return self.console.is_terminal and not self.console.is_dumb_terminal

    def show(self, label: Label, hint: str = INTERRUPT_HINT) -> None:
        """From now on LevelCode waits for `label` (its clock starts now)."""
        self.activity = Activity(label, hint, self.clock())
        self._schedule()

    def detail(self, text: str) -> None:
        """What the current activity reports of itself (a tool's progress), shown at once."""
        if self.activity is not None:
            self.activity.detail = text
            self._cancel_timer()
            self._start()

    def clear(self) -> None:
        """Nothing is waited for any more: the line goes."""
        if self.activity is None and self._live is None and self._timer is None:
            return  # the usual case for each streamed piece of text: nothing to do
        self.activity = None
        self._stop()

    @contextlib.contextmanager
    def showing(self, label: Label, hint: str = INTERRUPT_HINT) -> Iterator[None]:
        """The line for the block's duration (cleared after it, unless another took its place)."""
        self.show(label, hint)
        shown = self.activity
        try:
            yield
        finally:
            if self.activity is shown:
                self.clear()

    @contextlib.contextmanager
    def hidden(self, *, restart_clock: bool = False) -> Iterator[None]:
        """Off the screen for the block (something else is shown), back after it if still due;
        `restart_clock`: the time in the block does not count (the user was reading a card)."""
        self._hidden += 1
        self._stop()
        try:
            yield
        finally:
            self._hidden -= 1
            if restart_clock and self.activity is not None:
                self.activity.started = self.clock()
            self._schedule()

    def __rich__(self) -> Text:
        """What rich's refresh thread draws."""
        activity = self.activity
        if activity is None:
            return Text("")
        elapsed = self.clock() - activity.started
        frame = self.frames[int(elapsed / FRAME_SECONDS) % len(self.frames)]
        line = activity_text(
            frame,
            activity.text(),
            elapsed=elapsed,
            detail=activity.detail,
            hint=activity.hint,
            width=self.console.width,
        )
        if self.console.no_color:
            return Text(line, no_wrap=True, overflow="ellipsis")
        text = Text(line, style="dim", no_wrap=True, overflow="ellipsis")
        text.stylize("cyan", 0, len(frame))
        return text

    def _schedule(self) -> None:
        if not self.drawable or self.activity is None or self._hidden or self._live or self._timer:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a plain call): at once
            self._start()
            return
        self._timer = loop.call_later(SHOW_AFTER_SECONDS, self._start)

    def _start(self) -> None:
        self._timer = None
        if not self.drawable or self.activity is None or self._hidden or self._live is not None:
            return
        from rich.live import Live

        self._live = Live(
            self,
            console=self.console,
            transient=True,
            refresh_per_second=REFRESH_PER_SECOND,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start(refresh=True)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _stop(self) -> None:
        self._cancel_timer()
        if self._live is not None:
            self._live.stop()
            self._live = None


class PausingApprover:
    """An approver whose cards take the activity line off the screen first; the wait for the
    user does not count in the elapsed time shown after."""

    def __init__(self, approver: Approver, line: ActivityLine) -> None:
        self.approver = approver
        self.line = line

    @property
    def interactive(self) -> bool:
        return self.approver.interactive

    async def decide(self, request: ApprovalRequest) -> Choice:
        with self.line.hidden(restart_clock=True):
            return await self.approver.decide(request)
