"""Streaming markdown to a terminal: finished blocks are printed once, rendered; the block still
being written shows live below them and is replaced, never duplicated, as it grows.

A block ends at a blank line outside a code fence, so a fence is never cut in half. The model
can echo a server's text, so what is shown is escaped (ui/visible.py) when it is printed, never
per streamed piece (a CRLF may arrive split in two).
"""

from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

from levelcode.ui.visible import visible_block

FENCE = "```"


def split_finished(text: str) -> tuple[str, str]:
    """(finished blocks, the unfinished rest) — the cut is the last blank line outside a fence."""
    cut = 0
    inside = False
    position = 0
    for line in text.splitlines(keepends=True):
        position += len(line)
        if line.lstrip().startswith(FENCE):
            inside = not inside
        elif not line.strip() and not inside and line.endswith("\n"):
            cut = position
    return text[:cut], text[cut:]


class MarkdownStream:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.pending = ""
        self.live: Live | None = None

    def feed(self, text: str) -> None:
        self.pending += text
        finished, self.pending = split_finished(self.pending)
        if finished.strip():
            self._print(finished)
        if self.console.is_terminal and self.pending.strip():
            self._live().update(Text(visible_block(self.pending)))

    def flush(self) -> None:
        rest, self.pending = self.pending, ""
        if self.live is not None:
            self.live.update(Text(""))
            self.live.stop()
            self.live = None
        if rest.strip():
            self._print(rest)

    def _print(self, block: str) -> None:
        shown = visible_block(block)
        if self.console.is_terminal:
            self.console.print(Markdown(shown.strip("\n")))
        else:
            self.console.out(shown.rstrip("\n"), highlight=False)

    def _live(self) -> Live:
        if self.live is None:
            self.live = Live(
                console=self.console, transient=True, auto_refresh=True, vertical_overflow="crop"
            )
            self.live.start()
        return self.live
