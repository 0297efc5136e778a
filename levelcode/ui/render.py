"""Turning agent events into terminal output (REPL and plain `run`) or JSON lines (`run --json`).

Every piece of text a server, a repository or the model wrote is escaped (ui/visible.py) before it
is printed; JSON lines carry the exact text, escaped by JSON itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO

from rich.console import Console
from rich.text import Text

from levelcode.agent.events import (
    AgentEvent,
    AwaitingModel,
    EventSink,
    Notice,
    TextDelta,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
    TurnFinished,
)
from levelcode.agent.spend import SpendReport
from levelcode.core.messages import Usage
from levelcode.core.outcome import SavedResult, human_bytes, media_summary
from levelcode.ui.activity_line import ActivityLine
from levelcode.ui.markdown_stream import MarkdownStream
from levelcode.ui.spend_view import EARLIER_UNPRICED, no_price_note
from levelcode.ui.visible import visible, visible_block

MAX_SHOWN_ARG = 80
MAX_RESULT_LINES = 6


def summarize_input(shown: Mapping[str, object]) -> str:
    parts = []
    for key, value in shown.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        text = " ".join(text.split())
        if len(text) > MAX_SHOWN_ARG:
            text = text[: MAX_SHOWN_ARG - 1] + "…"
        parts.append(visible(f"{key}={text}"))
    return "  ".join(parts)


def summarize_result(text: str) -> str:
    lines = visible_block(text).split("\n")
    head = lines[:MAX_RESULT_LINES]
    more = len(lines) - len(head)
    return "\n".join(head) + (f"\n… {more} more lines" if more > 0 else "")


def progress_detail(event: ToolProgress) -> str:
    """`3/5 (60%) · step 3 of 5`: the server's message escaped, on one line."""
    update = event.progress
    done = ""
    if update.progress is not None:
        done = f"{update.progress:g}" + (f"/{update.total:g}" if update.total is not None else "")
    if update.fraction is not None:
        done += f" ({update.fraction:.0%})"
    if update.task is not None:  # a task reports its status, and the figures last reported if any
        status = f"task {visible(update.task.status).replace('_', ' ')}"
        done = f"{done} · {status}" if done else status
    message = f" · {visible(' '.join(update.message.split()))[:100]}" if update.message else ""
    return f"{done}{message}"


WAITING = {"answer": "waiting for the model", "compaction": "compacting the conversation"}


class ConsoleSink:
    """Markdown streamed as it arrives; tool activity as compact dim lines; on a terminal, one
    live line while nothing shows that LevelCode works: waiting for the model (until its first
    token or tool call), or a tool running, with the progress its server reports
    (ui/activity_line.py). Whatever else is printed takes that line off first."""

    def __init__(
        self, console: Console, activity: Console | None = None, *, line: ActivityLine | None = None
    ) -> None:
        self.markdown = MarkdownStream(console)
        self.console = activity or console  # `run` sends tool activity to stderr, the answer to stdout
        self.line = line or ActivityLine(self.console)

    def _progress(self, event: ToolProgress) -> None:
        shown = self.line.activity
        if shown is None or shown.label != visible(event.name):
            self.line.show(visible(event.name))
        self.line.detail(progress_detail(event))

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, ToolProgress):
            self._progress(event)
            return
        if isinstance(event, TextDelta):
            self.line.clear()
            self.markdown.feed(event.text)
            return
        self.markdown.flush()
        if isinstance(event, AwaitingModel):
            self.line.show(WAITING[event.purpose])
        elif isinstance(event, Notice):
            with self.line.hidden():
                self.console.print(Text(visible_block(event.text), style="yellow"))
        else:
            self.line.clear()
            self._print(event)

    def _print(self, event: AgentEvent) -> None:
        if isinstance(event, ToolCallEvent):
            origin = "  [mcp]" if event.origin == "mcp" else ""
            line = Text.assemble(("● ", "cyan"), (visible(event.name), "bold cyan"), (origin, "magenta"))
            args = summarize_input(event.shown_input)
            if args:
                line.append("  " + args, style="dim")
            self.console.print(line)
            self.line.show(visible(event.name))  # until its result: the card, if any, hides it
        elif isinstance(event, ToolResultEvent):
            style = "red" if event.is_error else "dim"
            body = summarize_result(event.text) if event.is_error else _result_size(event.text)
            if event.media:
                body += f"  · {media_summary(event.media)}"
            if event.saved is not None:
                body += f"  · {saved_note(event.saved)}"
            self.console.print(Text("  ⎿ ", style="dim") + Text(body, style=style))
        elif isinstance(event, TurnFinished) and self.console is self.markdown.console:
            self.console.print()  # the REPL: a blank line between the answer and what follows


def saved_note(saved: SavedResult) -> str:
    """`result of 2.3 MB saved to PATH`: what the activity line says of a cut result."""
    return f"result of {human_bytes(saved.size)} saved to {visible(saved.path)}"


def _result_size(text: str) -> str:
    lines = text.count("\n") + 1 if text else 0
    first = visible(" ".join(text.split("\n", 1)[0].split())[:70])
    return f"{first}{' …' if lines > 1 else ''}  ({lines} lines, {len(text):,} chars)"


class HeldNotices:
    """A sink that can hold notices back (while the prompt is up) and show them later, in order."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.held: list[AgentEvent] | None = None

    def emit(self, event: AgentEvent) -> None:
        if self.held is not None and isinstance(event, Notice):
            self.held.append(event)
        else:
            self.sink.emit(event)

    def hold(self) -> None:
        self.held = [] if self.held is None else self.held

    def release(self) -> None:
        held, self.held = self.held or [], None
        for event in held:
            self.sink.emit(event)


class JsonLinesSink:
    """`run --json`: one JSON object per line: tool_call, tool_result, notice, final."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def write(self, record: Mapping[str, object]) -> None:
        self.out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self.out.flush()

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, ToolCallEvent):
            self.write(
                {
                    "type": "tool_call",
                    "id": event.id,
                    "name": event.name,
                    "origin": event.origin,
                    "input": dict(event.shown_input),
                }
            )
        elif isinstance(event, ToolResultEvent):
            self.write(
                {
                    "type": "tool_result",
                    "id": event.id,
                    "name": event.name,
                    "is_error": event.is_error,
                    "text": event.text,
                    "media": [
                        {"type": m.kind, "mimeType": m.mime_type, "bytes": m.size} for m in event.media
                    ],
                    **(
                        {"saved": {"path": event.saved.path, "bytes": event.saved.size}}
                        if event.saved
                        else {}
                    ),
                }
            )
        elif isinstance(event, ToolProgress):
            update = event.progress
            self.write(
                {
                    "type": "progress",
                    "id": event.id,
                    "name": event.name,
                    "progress": update.progress,
                    "total": update.total,
                    "message": update.message,
                    **(
                        {"task": {"id": update.task.task_id, "status": update.task.status}}
                        if update.task
                        else {}
                    ),
                }
            )
        elif isinstance(event, Notice):
            self.write({"type": "notice", "text": event.text})
        elif isinstance(event, TurnFinished):
            final: dict[str, object] = {"type": "final", "text": event.text, "stop_reason": event.stop_reason}
            if event.usage is not None:
                final["usage"] = usage_json(event.usage)
            if event.spend is not None:
                final.update(spend_json(event.spend))
            self.write(final)


def usage_json(usage: Usage) -> dict[str, int]:
    """The API's own counts, its own names: `input_tokens` is the part not read from or written to
    the prompt cache."""
    return {
        "input_tokens": usage.input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "output_tokens": usage.output_tokens,
    }


def spend_json(report: SpendReport) -> dict[str, object]:
    """The model, the turn's cost in US dollars, and the session's tokens and cost; a cost is null,
    with a note, when a request's model has no known price (the turn's note says how to set one)."""
    spent: dict[str, object] = {"model": report.model, "cost_usd": _dollars(report.turn.cost)}
    if report.turn.cost is None:
        spent["cost_note"] = no_price_note(report.model)
    session: dict[str, object] = {
        "usage": usage_json(report.session.usage),
        "cost_usd": _dollars(report.session.cost),
    }
    if report.session.cost is None and report.turn.cost is not None:
        session["cost_note"] = EARLIER_UNPRICED
    spent["session"] = session
    return spent


def _dollars(cost: float | None) -> float | None:
    return None if cost is None else round(cost, 6)
