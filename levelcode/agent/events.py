"""What the loop tells the surfaces while it works: that it waits for the model, text as it
streams, tool calls and results, the final answer. The REPL renders them, `run` prints them,
`run --json` writes one JSON line each.

Tool inputs in events are display-safe: an MCP call's argument values are masked before they
ever reach an event (G4: arguments carry tokens), so no surface can print them by mistake.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from levelcode.agent.spend import SpendReport
from levelcode.core.messages import Usage
from levelcode.core.outcome import MediaInfo, SavedResult
from levelcode.core.progress import Progress

ToolOrigin = Literal["builtin", "mcp", "unknown"]


@dataclass(frozen=True)
class AwaitingModel:
    """A request has gone to the model and nothing of its answer has come back yet: for
    `"answer"` the next step of the turn, for `"compaction"` the summary of older turns."""

    purpose: Literal["answer", "compaction"] = "answer"


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallEvent:
    id: str
    name: str
    origin: ToolOrigin
    shown_input: Mapping[str, object] = field(default_factory=dict[str, object])


@dataclass(frozen=True)
class ToolResultEvent:
    id: str
    name: str
    is_error: bool
    text: str
    media: tuple[MediaInfo, ...] = ()  # what pictures and sounds came with it: never their data
    saved: SavedResult | None = None  # cut for the model; the whole result is in this file


@dataclass(frozen=True)
class ToolProgress:
    """A running call's progress, as its server reports it (MCP `notifications/progress`)."""

    id: str
    name: str
    progress: Progress


@dataclass(frozen=True)
class Notice:
    """Something the user should see that is not the model's text (a refusal, a retry, a cut)."""

    text: str


@dataclass(frozen=True)
class TurnFinished:
    text: str
    stop_reason: str
    usage: Usage | None = None  # the turn's requests together, as the API reported them
    spend: SpendReport | None = None  # the turn's and the session's tokens and cost


AgentEvent = (
    AwaitingModel | TextDelta | ToolCallEvent | ToolProgress | ToolResultEvent | Notice | TurnFinished
)


class EventSink(Protocol):
    def emit(self, event: AgentEvent) -> None: ...


class RecordingSink:
    """Keeps every event; for tests and for surfaces that render after the fact."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
