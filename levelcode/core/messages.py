"""The transcript's shape, shared by the loop, the providers' translate step and the surfaces.

Pure data. The pairing invariant lives on this shape: every `ToolUse` in an assistant message is
answered by exactly one `ToolResult` (same id) in the user message that follows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from levelcode.core.outcome import ToolOutcome

PURE = True

Role = Literal["user", "assistant"]
# Between the text blocks of one message, wherever they become one text (an API that takes a
# message as one string, the final answer, a summary): a blank line, so two prompts, a prompt and
# a note, or two paragraphs of an answer never run into each other.
PARAGRAPH_BREAK = "\n\n"


@dataclass(frozen=True)
class TextBlock:
    text: str


@dataclass(frozen=True)
class ToolUse:
    id: str
    name: str
    input: Mapping[str, object] = field(default_factory=dict[str, object])
    # The arguments as the model sent them, when they were not a JSON object (`input` is then
    # empty): the tool is not run, and the model is told what it sent.
    invalid_arguments: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """A tool use's answer: its outcome as the tool (or server) ended it, unchanged on the way here."""

    tool_use_id: str
    outcome: ToolOutcome

    @property
    def content(self) -> str:
        return self.outcome.text

    @property
    def is_error(self) -> bool:
        return self.outcome.is_error


Block = TextBlock | ToolUse | ToolResult


@dataclass(frozen=True)
class Message:
    role: Role
    content: tuple[Block, ...]

    @property
    def tool_uses(self) -> tuple[ToolUse, ...]:
        return tuple(block for block in self.content if isinstance(block, ToolUse))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(block for block in self.content if isinstance(block, ToolResult))

    @property
    def text(self) -> str:
        """The message's text blocks as one text, a blank line between them (empty ones left out)."""
        texts = [block.text for block in self.content if isinstance(block, TextBlock) and block.text]
        return PARAGRAPH_BREAK.join(texts)


def user_text(text: str) -> Message:
    return Message("user", (TextBlock(text),))


class ToolShape(Protocol):
    """What a provider needs to offer a tool to the model (built-ins and MCP tools alike)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class Usage:
    """Tokens of one request as the API reports them. `input_tokens` is the part read neither from
    nor into the prompt cache; the whole prompt is `prompt_tokens`."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )


@dataclass(frozen=True)
class AssistantTurn:
    """One completed model response: the assistant message to append, why it stopped, its cost."""

    message: Message
    stop_reason: str
    usage: Usage | None = None


def unanswered_tool_uses(messages: Sequence[Message]) -> list[ToolUse]:
    """Tool uses not answered by exactly one result in the next message (empty when paired)."""
    missing: list[ToolUse] = []
    for index, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_uses:
            continue
        following = messages[index + 1] if index + 1 < len(messages) else None
        answered = (
            [r.tool_use_id for r in following.tool_results] if following and following.role == "user" else []
        )
        missing.extend(use for use in message.tool_uses if answered.count(use.id) != 1)
    return missing
