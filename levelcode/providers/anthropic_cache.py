"""Prompt-cache breakpoints on an Anthropic request: where they go, and why there.

Pure: a request dict in, the same request with `cache_control` markers out. The API caches the
prompt's prefix in its own order — tools, then system text, then messages — up to each marked
block, and reads a later request's prefix from the cache when it is the same byte for byte. So
the prefix must not change from turn to turn (the request is rebuilt from the transcript the same
way each time: tools in catalog order, deferred ones in their fixed place, the system text built
once per session), and the markers go where the prefix ends:

    1. the last tool that is not deferred   tools alone (system text may grow as servers start)
    2. the system text                      tools + system
    3. the end of the previous request      what the previous request wrote: always a hit,
                                            however many blocks this step added
    4. the end of the conversation          written now, read by the next request

The API refuses a request with more than four markers; deferred tools never carry one (they are
not part of the prompt until a reference loads them). The markers themselves are not content:
moving the last one along does not change the prefix.
"""

from __future__ import annotations

from typing import Any

PURE = True

MAX_BREAKPOINTS = 4
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

JsonObject = dict[str, Any]


def with_cache_breakpoints(request: JsonObject) -> JsonObject:
    """`request` with its cache markers; the input is not changed."""
    marked = dict(request)
    tools = [dict(tool) for tool in request.get("tools", [])]
    stable = [tool for tool in tools if not tool.get("defer_loading")]
    if stable:
        stable[-1]["cache_control"] = EPHEMERAL
        marked["tools"] = tools
    system = request.get("system")
    if isinstance(system, str) and system:
        marked["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    messages = [dict(message) for message in request.get("messages", [])]
    for index in _conversation_marks(messages):
        messages[index] = _mark_last_block(messages[index])
    marked["messages"] = messages
    return marked


def _conversation_marks(messages: list[JsonObject]) -> list[int]:
    """The last message, and the user message that ended the previous request (two back)."""
    last = len(messages) - 1
    if last < 0:
        return []
    previous = last - 2
    if previous >= 0 and messages[previous].get("role") == "user":
        return [previous, last]
    return [last]


def _mark_last_block(message: JsonObject) -> JsonObject:
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list) or not content:
        return message
    blocks = [dict(block) for block in content]
    blocks[-1]["cache_control"] = EPHEMERAL
    return {**message, "content": blocks}


def count_breakpoints(request: JsonObject) -> int:
    """How many markers a request carries (the API allows `MAX_BREAKPOINTS`)."""
    system = request.get("system")
    blocks = [
        *request.get("tools", []),
        *(system if isinstance(system, list) else []),
        *(b for m in request.get("messages", []) if isinstance(m.get("content"), list) for b in m["content"]),
    ]
    return sum(1 for block in blocks if isinstance(block, dict) and "cache_control" in block)
