"""Token estimates, made one way everywhere (about four characters of JSON per token), so the
context meter, the server list and the chip agree and their parts add up."""

from __future__ import annotations

import json
import math

from levelcode.core.messages import ToolShape

PURE = True

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def tool_tokens(tool: ToolShape) -> int:
    """A tool's standing cost: its name, description and schema, sent with every request."""
    spec = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
    return estimate_tokens(json.dumps(spec, ensure_ascii=False, default=str))
