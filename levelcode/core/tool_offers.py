"""Tools offered behind a search (deferred loading): what such a tool is, and which of them the
conversation has found so far.

Pure. A `DeferredTool` is offered to a provider without costing the model's context: Anthropic
receives it with `defer_loading` and loads it when a `tool_reference` in a tool result names it;
providers without that support leave it out until it is found, then offer it after the tools
that were there before (so the request's prefix stays the same). What has been found is read
from the transcript itself — the `references` of tool results — so it is exactly what the model
has seen: a compaction that summarizes a search away also unloads what it found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from levelcode.core.messages import Message, ToolShape

PURE = True


@dataclass(frozen=True)
class DeferredTool:
    name: str
    description: str
    input_schema: Mapping[str, object] = field(default_factory=dict[str, object])
    found_at: int | None = None  # its place among the tools found so far; None while not found

    @property
    def found(self) -> bool:
        return self.found_at is not None


def found_tool_names(messages: Sequence[Message]) -> list[str]:
    """Every tool a tool result of the conversation referenced, in the order first referenced."""
    found: dict[str, None] = {}
    for message in messages:
        for result in message.tool_results:
            for name in result.outcome.references:
                found.setdefault(name, None)
    return list(found)


def offer_found(tools: Sequence[ToolShape], messages: Sequence[Message]) -> list[ToolShape]:
    """`tools` with each deferred tool marked found (and where) when the conversation found it."""
    order = {name: index for index, name in enumerate(found_tool_names(messages))}
    return [
        replace(tool, found_at=order[tool.name])
        if isinstance(tool, DeferredTool) and tool.name in order
        else tool
        for tool in tools
    ]


def in_context(tools: Sequence[ToolShape]) -> list[ToolShape]:
    """The tools whose definitions the model has in its context: all but the deferred not found."""
    return [tool for tool in tools if not isinstance(tool, DeferredTool) or tool.found]
