"""What a tool call ends in — built-in or MCP — from the server to the transcript: one type, and the
one place an `ERROR:` text is formed.

Pure data. The model reads `text`; `is_error` travels as the API's error flag where there is one
(Anthropic's `is_error`) and as the `ERROR: ` prefix where there is not (OpenAI-shaped), so every
failure's text starts with the prefix whoever reports it.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR_PREFIX = "ERROR: "


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    is_error: bool = False
    # Tools this result makes available to the model (a tool search's finds, by their model names):
    # Anthropic loads them through `tool_reference` blocks; other providers offer them from the next
    # request on (core/tool_offers.py).
    references: tuple[str, ...] = ()


def failure(message: str) -> ToolOutcome:
    """A failed call: `ERROR: ` and the message (which must not carry the prefix itself)."""
    return ToolOutcome(ERROR_PREFIX + message, True)
