"""How the context a model sees each turn is spent: system prompt, tools (built-in and MCP, per
server), messages. Pure.

Token counts are estimates (about four characters of the JSON each part is sent as per token),
made the same way for every part so they compare and add up: the parts always sum to the total,
and the MCP share is carved out of the tools share, never counted beside it. MCP tools deferred
behind `tool_search` are counted apart (`deferred_by_server`): their definitions are not in the
context until a search loads them, so they are not part of the total; `tool_search` itself (with
its index of servers) is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from levelcode.core.messages import Message, TextBlock, ToolResult, ToolShape, ToolUse
from levelcode.core.token_estimate import estimate_tokens, tool_tokens

PURE = True

# A picture costs the model about (width * height) / 750 tokens, up to ~1,600 for the largest the
# APIs take; the size is not known here, so each counts the most (its base64 is not text it reads).
MEDIA_TOKENS = 1_600


def message_tokens(message: Message) -> int:
    parts: list[object] = []
    media = sum(len(b.outcome.media) for b in message.content if isinstance(b, ToolResult))
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolUse):
            parts.append({"name": block.name, "input": dict(block.input)})
        elif isinstance(block, ToolResult):
            parts.append(block.content)
    return estimate_tokens(json.dumps(parts, ensure_ascii=False, default=str)) + MEDIA_TOKENS * media


@dataclass(frozen=True)
class ContextWindow:
    """The window compaction goes by: `tokens`, and whether it is `known` (the model's published
    window, the user's `contextWindow`, or the one the API named) or LevelCode's default guess."""

    model: str
    tokens: int
    known: bool


@dataclass(frozen=True)
class ContextUsage:
    system: int
    builtin_tools: int
    mcp_by_server: Mapping[str, int]  # loaded: in the context on every request
    messages: int
    # carved out of `system`: what each MCP server's instructions add to the system prompt
    instructions_by_server: Mapping[str, int] = field(default_factory=dict[str, int])
    tool_search: int = 0  # the search tool and its index, when tools are deferred
    deferred_by_server: Mapping[str, int] = field(default_factory=dict[str, int])  # kept out
    deferred_tools: int = 0
    window: ContextWindow | None = None  # the model's, when the caller knows which model it is

    @property
    def mcp_tools(self) -> int:
        return sum(self.mcp_by_server.values()) + self.tool_search

    @property
    def mcp_deferred(self) -> int:
        return sum(self.deferred_by_server.values())

    @property
    def tools(self) -> int:
        return self.builtin_tools + self.mcp_tools

    @property
    def total(self) -> int:
        return self.system + self.tools + self.messages


def measure_context(
    system: str,
    builtin: Sequence[ToolShape],
    mcp_by_server: Mapping[str, Sequence[ToolShape]],
    messages: Sequence[Message],
    instructions: Sequence[tuple[str, str]] = (),
    *,
    tool_search: ToolShape | None = None,
    deferred_by_server: Mapping[str, Sequence[ToolShape]] | None = None,
    window: ContextWindow | None = None,
) -> ContextUsage:
    """`mcp_by_server`: the MCP tools in the context (loaded up front or found by a search);
    `deferred_by_server`: those still behind `tool_search`; `instructions`: (server, the section it
    adds to `system`), counted inside `system`."""
    deferred = deferred_by_server or {}
    return ContextUsage(
        instructions_by_server={server: estimate_tokens(text) for server, text in instructions},
        system=estimate_tokens(system),
        builtin_tools=sum(tool_tokens(tool) for tool in builtin),
        mcp_by_server={server: sum(tool_tokens(t) for t in tools) for server, tools in mcp_by_server.items()},
        messages=sum(message_tokens(message) for message in messages),
        tool_search=tool_tokens(tool_search) if tool_search is not None else 0,
        deferred_by_server={server: sum(tool_tokens(t) for t in tools) for server, tools in deferred.items()},
        deferred_tools=sum(len(tools) for tools in deferred.values()),
        window=window,
    )
