"""Between our transcript and tool shapes and each API's wire shapes, both directions.

Pure: plain data in, plain JSON-ready data out. Never imports an SDK, never does I/O.

Rules that are easy to get wrong and are load-bearing:
- Anthropic: tool results travel as `tool_result` blocks in the user message that follows the
  assistant's `tool_use` blocks, *before* any text in that message; the system prompt is a
  top-level parameter; empty or blank (whitespace-only) text blocks are refused by the API, so
  none are sent (a model may itself open with a blank line before a tool call).
- OpenAI-shaped: each tool result is its own `role: tool` message (with `tool_call_id`) placed
  right after the assistant message that made the call; the system prompt is the first message;
  there is no `is_error` flag, so a failed result's text starts with `ERROR: `.
- Pictures and sounds a tool returned (`ToolOutcome.media`, already bounded): Anthropic takes
  images inside the `tool_result` (its content becomes a list of blocks) and no audio, so audio
  is named in a text block instead; OpenAI-shaped APIs take no media in a `role: tool` message,
  so they follow the tool messages in one user message (`image_url` data URLs, `input_audio`
  for WAV and MP3), each introduced by the call it came from. The data is never put in text.
- Deferred tools (core/tool_offers.py): Anthropic gets every one, in a stable place, with
  `defer_loading` (out of the context until a `tool_reference` in a tool result loads it), and a
  reference only to a deferred tool it is sent — a reference to a tool no longer offered would
  make every later request a 400. OpenAI-shaped APIs have no such loading: a deferred tool is
  offered once found, after the tools that were offered before it.
- Tool arguments that are not a JSON object (OpenAI-shaped servers send a string that can be
  anything; a truncated Anthropic stream can end mid-object) make a `ToolUse` with an empty
  input and the text as sent in `invalid_arguments`; `invalid_arguments_error` lets the loop
  answer the call with a clear `ERROR:` result instead of running the tool, and the call goes
  back to the API with the empty object (a valid one, so the conversation stays usable).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from levelcode.core.messages import Message, TextBlock, ToolResult, ToolShape, ToolUse
from levelcode.core.outcome import ERROR_PREFIX, Media, ToolOutcome, failure
from levelcode.core.tool_offers import DeferredTool

PURE = True

JsonObject = dict[str, Any]

EMPTY_MESSAGE_TEXT = "(empty)"

# Our stop reasons follow Anthropic's vocabulary; OpenAI-shaped finish reasons map onto it.
_OPENAI_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


# --- tools -------------------------------------------------------------------------------------


def object_schema(schema: Mapping[str, object]) -> JsonObject:
    """The tool's input schema, with `type: object` added when missing (both APIs require it)."""
    result = dict(schema)
    result.setdefault("type", "object")
    return result


def anthropic_tools(tools: Sequence[ToolShape]) -> list[JsonObject]:
    return [_anthropic_tool(tool) for tool in tools]


def _anthropic_tool(tool: ToolShape) -> JsonObject:
    shaped: JsonObject = {"name": tool.name, "input_schema": object_schema(tool.input_schema)}
    if tool.description:
        shaped["description"] = tool.description
    if isinstance(tool, DeferredTool):
        shaped["defer_loading"] = True
    return shaped


def referable_tools(tools: Sequence[ToolShape]) -> frozenset[str]:
    """The names a `tool_reference` may load: the deferred tools offered in this request."""
    return frozenset(tool.name for tool in tools if isinstance(tool, DeferredTool))


def openai_tools(tools: Sequence[ToolShape]) -> list[JsonObject]:
    offered = [tool for tool in tools if not isinstance(tool, DeferredTool)]
    found = sorted(
        (tool for tool in tools if isinstance(tool, DeferredTool) and tool.found_at is not None),
        key=lambda tool: tool.found_at or 0,
    )
    return [_openai_tool(tool) for tool in (*offered, *found)]


def _openai_tool(tool: ToolShape) -> JsonObject:
    function: JsonObject = {"name": tool.name, "parameters": object_schema(tool.input_schema)}
    if tool.description:
        function["description"] = tool.description
    return {"type": "function", "function": function}


# --- transcript → Anthropic ------------------------------------------------------------------


def anthropic_messages(
    messages: Sequence[Message], *, referable: frozenset[str] = frozenset()
) -> list[JsonObject]:
    """Our transcript as Anthropic `messages` (the system prompt goes in its own parameter);
    `referable`: the deferred tools a result's references may load (`referable_tools`)."""
    return [{"role": m.role, "content": _anthropic_content(m, referable)} for m in messages]


def _anthropic_content(message: Message, referable: frozenset[str]) -> list[JsonObject]:
    results = [_anthropic_tool_result(block, referable) for block in message.tool_results]
    others: list[JsonObject] = []
    for block in message.content:
        if isinstance(block, TextBlock) and block.text.strip():
            others.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolUse):
            others.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
            )
    blocks = results + others
    # An empty message would make every later request a 400; a visible placeholder keeps the
    # conversation usable (a model can end a turn with no content at all).
    return blocks or [{"type": "text", "text": EMPTY_MESSAGE_TEXT}]


def _anthropic_tool_result(result: ToolResult, referable: frozenset[str]) -> JsonObject:
    content: str | list[JsonObject] = result.content
    references = [name for name in result.outcome.references if name in referable]
    if result.outcome.media or references:
        blocks: list[JsonObject] = []
        if result.outcome.media:  # a text block first: Anthropic refuses a result of media alone
            blocks.append(
                {"type": "text", "text": result.content if result.content.strip() else EMPTY_MESSAGE_TEXT}
            )
            blocks.extend(_anthropic_media(media) for media in result.outcome.media)
        elif result.content.strip():
            blocks.append({"type": "text", "text": result.content})
        blocks.extend({"type": "tool_reference", "tool_name": name} for name in references)
        content = blocks
    shaped: JsonObject = {"type": "tool_result", "tool_use_id": result.tool_use_id, "content": content}
    if result.is_error:
        shaped["is_error"] = True
    return shaped


# --- transcript → OpenAI-shaped --------------------------------------------------------------


def openai_messages(system: str, messages: Sequence[Message]) -> list[JsonObject]:
    """Our transcript as Chat Completions `messages`, the system prompt first."""
    shaped: list[JsonObject] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "assistant":
            shaped.append(_openai_assistant(message))
        else:
            shaped.extend(_openai_user(message))
    return shaped


def _openai_assistant(message: Message) -> JsonObject:
    if message.tool_results:
        raise ValueError("a tool result cannot be part of an assistant message")
    shaped: JsonObject = {"role": "assistant", "content": message.text or None}
    if message.tool_uses:
        shaped["tool_calls"] = [_openai_tool_call(use) for use in message.tool_uses]
    elif shaped["content"] is None:
        shaped["content"] = EMPTY_MESSAGE_TEXT
    return shaped


def _openai_tool_call(use: ToolUse) -> JsonObject:
    arguments = json.dumps(dict(use.input), ensure_ascii=False)
    return {"id": use.id, "type": "function", "function": {"name": use.name, "arguments": arguments}}


def _openai_user(message: Message) -> list[JsonObject]:
    if message.tool_uses:
        raise ValueError("a tool use cannot be part of a user message")
    shaped = [_openai_tool_message(result) for result in message.tool_results]
    parts = [part for result in message.tool_results for part in _openai_media_parts(result)]
    if parts:
        text = [{"type": "text", "text": message.text}] if message.text else []
        shaped.append({"role": "user", "content": [*parts, *text]})
    elif message.text or not shaped:
        shaped.append({"role": "user", "content": message.text or EMPTY_MESSAGE_TEXT})
    return shaped


def _openai_tool_message(result: ToolResult) -> JsonObject:
    content = result.content
    if result.is_error and not content.startswith("ERROR"):
        content = ERROR_PREFIX + content
    return {"role": "tool", "tool_call_id": result.tool_use_id, "content": content}


# --- API → ours ------------------------------------------------------------------------------


def parse_tool_arguments(raw: str) -> dict[str, object] | None:
    """A tool call's arguments text as an input mapping, or None when it is not a JSON object;
    never raises (see the module docstring)."""
    if not raw.strip():
        return {}  # some servers send nothing at all for a tool without parameters
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def tool_use_of(call_id: str, name: str, raw: str) -> ToolUse:
    """The tool use a streamed call's arguments text makes (flagged when they are not an object)."""
    parsed = parse_tool_arguments(raw)
    if parsed is None:
        return ToolUse(call_id, name, {}, invalid_arguments=raw)
    return ToolUse(call_id, name, parsed)


def invalid_arguments_error(use: ToolUse) -> ToolOutcome | None:
    """The outcome that answers a call whose arguments were not a JSON object; None if they were."""
    raw = use.invalid_arguments
    if raw is None:
        return None
    shown = raw if len(raw) <= 200 else raw[:200] + "…"
    return failure(
        "the arguments for this tool call were not a valid JSON object, so the tool "
        f"was not run. Received: {shown!r}. Call the tool again with a JSON object."
    )


def openai_stop_reason(finish_reason: str | None, *, has_tool_calls: bool) -> str:
    """Our stop reason for an OpenAI-shaped finish reason (some servers say `stop` after tool calls)."""
    if has_tool_calls:
        return "tool_use"
    if finish_reason is None:
        return "end_turn"
    return _OPENAI_STOP_REASONS.get(finish_reason, finish_reason)


# --- media (pictures and sounds from tools) ------------------------------------------------------

_OPENAI_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}


def _anthropic_media(media: Media) -> JsonObject:
    if media.kind != "image":
        return {
            "type": "text",
            "text": f"[{media.kind} ({media.mime_type}) not sent: this API takes no audio]",
        }
    return {"type": "image", "source": {"type": "base64", "media_type": media.mime_type, "data": media.data}}


def _openai_media_parts(result: ToolResult) -> list[JsonObject]:
    """The user-message parts that carry one tool result's media, introduced by its call id."""
    if not result.outcome.media:
        return []
    intro = f"Attachments returned by tool call {result.tool_use_id} (its result is above):"
    parts: list[JsonObject] = [{"type": "text", "text": intro}]
    for media in result.outcome.media:
        if media.kind == "image":
            url = f"data:{media.mime_type};base64,{media.data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        else:
            audio = {"data": media.data, "format": _OPENAI_AUDIO_FORMATS.get(media.mime_type, "wav")}
            parts.append({"type": "input_audio", "input_audio": audio})
    return parts
