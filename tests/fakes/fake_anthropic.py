"""A fake Anthropic Messages API (`POST /v1/messages`, and the model list `GET /v1/models`) on
127.0.0.1, for the real `anthropic` SDK.

    with fake_anthropic([Reply(text="Hello")]) as server:
        AnthropicProvider(ProviderSettings("anthropic", "claude-sonnet-5-5", server.base_url, "test-key"))

Refuses, in the API's own error shape, what the real API refuses and we could get wrong: tool
names outside `^[a-zA-Z0-9_-]{1,128}$` (in `tools` and in the transcript), duplicate tool names,
a `tool_use` not answered by a `tool_result` in the very next user message (ids matching, results
first), a `tool_result` answering nothing, a `tool_use` id used twice, empty or blank text blocks
and messages, a missing key (401), an unknown
model (404); and (tests/fakes/anthropic_prompt.py) more than four cache markers, a marker on a
deferred tool, a `tool_reference` to anything but a deferred tool of the request, a prompt over
`context_window` tokens. A scripted reply may not call a deferred tool the request has not loaded
(the real model cannot see it). Usage reports prompt-cache reads and writes like the API's.
Streams SSE events exactly as the API does. Run alone:
`python -m tests.fakes.fake_anthropic --script FILE.json --port-file F` (see `server_process`).
"""

from __future__ import annotations

import base64
import re
import sys
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from levelcode.providers.factory import DEFAULT_MODELS
from tests.fakes.anthropic_prompt import (
    DEFAULT_MIN_CACHEABLE_TOKENS,
    PromptCache,
    check_cache_markers,
    check_tool_references,
    check_window,
    deferred_tools,
    loaded_tools,
)
from tests.fakes.scripted_server import (
    FAULT_POINT,
    ApiError,
    RecordedRequest,
    Reply,
    ScriptedServer,
    Step,
    ToolCall,
    json_pieces,
    sse,
    text_pieces,
    token_estimate,
)

NAME_PATTERN = r"[a-zA-Z0-9_-]{1,128}"
MODELS = frozenset({DEFAULT_MODELS["anthropic"], "claude-haiku-5-5", "claude-opus-5-5", "fake-claude"})
_BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking")


def fake_anthropic(
    steps: Iterable[Step] = (),
    *,
    context_window: int | None = None,
    min_cacheable_tokens: int = DEFAULT_MIN_CACHEABLE_TOKENS,
    **options: Any,
) -> ScriptedServer:
    """An Anthropic-shaped `ScriptedServer`; `with` starts and stops it. `context_window`: refuse a
    longer prompt as the API does; other options: see ScriptedServer."""
    shape = AnthropicShape(context_window=context_window, min_cacheable_tokens=min_cacheable_tokens)
    return ScriptedServer(shape, steps, **options)


def offered_tool_names(request: RecordedRequest) -> list[str]:
    return [tool["name"] for tool in request.body.get("tools", [])]


def tool_results(request: RecordedRequest) -> list[dict[str, Any]]:
    """The `tool_result` blocks of the request's last message."""
    return [block for block in _blocks(request.body["messages"][-1]) if block.get("type") == "tool_result"]


class AnthropicShape:
    name = "anthropic"
    path = "/v1/messages"
    base_path = ""
    models_path = "/v1/models"
    default_models = MODELS

    def __init__(
        self, *, context_window: int | None = None, min_cacheable_tokens: int = DEFAULT_MIN_CACHEABLE_TOKENS
    ) -> None:
        self.context_window = context_window
        self.cache = PromptCache(min_cacheable_tokens)

    def presented_key(self, headers: Mapping[str, str]) -> str | None:
        if "x-api-key" in headers:
            return headers["x-api-key"]
        auth = headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None

    def bad_key(self, key: str | None) -> ApiError:
        message = "invalid x-api-key" if key else "x-api-key header is required"
        return ApiError(401, message, type="authentication_error")

    def unknown_model(self, model: object) -> ApiError:
        return ApiError(404, f"model: {model}", type="not_found_error")

    def validate(self, body: Mapping[str, Any]) -> ApiError | None:
        checks = (
            _check_max_tokens,
            _check_tools,
            _check_system,
            _check_messages,
            _check_pairing,
            check_cache_markers,
            check_tool_references,
        )
        for check in checks:
            message = check(body)
            if message is not None:
                return ApiError(400, message)
        too_long = check_window(body, self.context_window)
        return ApiError(400, too_long) if too_long else None

    def check_reply(self, reply: Reply, body: Mapping[str, Any]) -> ApiError | None:
        """A model can call only what it sees: not a deferred tool that nothing has loaded."""
        hidden = set(deferred_tools(body)) - set(loaded_tools(body))
        for call in reply.tool_calls:
            if call.name in hidden:
                message = (
                    f"fake anthropic server: the script calls {call.name}, which no tool_reference loaded"
                )
                return ApiError(400, message)
        return None

    def models_page(self, models: Iterable[str]) -> dict[str, Any]:
        """`GET /v1/models` as the API answers it: one page (`has_more` false), every model."""
        entries = [
            {"type": "model", "id": m, "display_name": m, "created_at": "2026-01-01T00:00:00Z"}
            for m in models
        ]
        first, last = (entries[0]["id"], entries[-1]["id"]) if entries else (None, None)
        return {"data": entries, "has_more": False, "first_id": first, "last_id": last}

    def error_body(self, error: ApiError) -> dict[str, Any]:
        return {
            "type": "error",
            "error": {"type": error.type, "message": error.message},
            "request_id": _new_id("req_"),
        }

    def response(self, reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        content.extend(_tool_use(call, dict(call.input)) for call in reply.tool_calls)
        message = _message(body, content, _stop_reason(reply), self.cache.usage(body))
        message["usage"]["output_tokens"] = token_estimate(content)
        return message

    def events(self, reply: Reply, body: Mapping[str, Any]) -> Iterator[bytes | None]:
        start = _message(body, [], None, self.cache.usage(body))
        yield sse({"type": "message_start", "message": start}, "message_start")
        index = 0
        if reply.text or reply.stops_early:
            yield from _text_block_events(index, reply.text, closed=not reply.stops_early)
            index += 1
        if reply.stops_early:
            yield FAULT_POINT
            return
        for call in reply.tool_calls:
            yield from _tool_block_events(index, call)
            index += 1
        delta = {"stop_reason": _stop_reason(reply), "stop_sequence": None}
        usage = {
            "output_tokens": token_estimate([reply.text, *(c.arguments_json() for c in reply.tool_calls)])
        }
        yield sse({"type": "message_delta", "delta": delta, "usage": usage}, "message_delta")
        yield sse({"type": "message_stop"}, "message_stop")


def _text_block_events(index: int, text: str, *, closed: bool) -> Iterator[bytes]:
    start = {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
    yield sse(start, "content_block_start")
    yield sse({"type": "ping"}, "ping")
    for piece in text_pieces(text):
        delta = {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": piece},
        }
        yield sse(delta, "content_block_delta")
    if closed:
        yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")


def _tool_block_events(index: int, call: ToolCall) -> Iterator[bytes]:
    start = {"type": "content_block_start", "index": index, "content_block": _tool_use(call, {})}
    yield sse(start, "content_block_start")
    for piece in json_pieces(call.arguments_json()):
        delta = {"type": "input_json_delta", "partial_json": piece}
        yield sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
    yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")


def _message(
    body: Mapping[str, Any], content: list[dict[str, Any]], stop_reason: str | None, usage: Mapping[str, int]
) -> dict[str, Any]:
    return {
        "id": _new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }


def _tool_use(call: ToolCall, tool_input: dict[str, Any]) -> dict[str, Any]:
    call_id = call.id or _new_id("toolu_")
    return {"type": "tool_use", "id": call_id, "name": call.name, "input": tool_input}


def _stop_reason(reply: Reply) -> str:
    return reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


# --- validation: each check returns the API's message, or None --------------------------------


def _blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _check_max_tokens(body: Mapping[str, Any]) -> str | None:
    value = body.get("max_tokens")
    return None if isinstance(value, int) and value >= 1 else "max_tokens: Field required"


def _check_tools(body: Mapping[str, Any]) -> str | None:
    seen: set[str] = set()
    for i, tool in enumerate(body.get("tools") or []):
        name = tool.get("name")
        if not isinstance(name, str) or not re.fullmatch(NAME_PATTERN, name):
            return f"tools.{i}.custom.name: String should match pattern '^{NAME_PATTERN}$'"
        if name in seen:
            return "tools: Tool names must be unique."
        seen.add(name)
        if (tool.get("input_schema") or {}).get("type") != "object":
            return f"tools.{i}.custom.input_schema.type: Input should be 'object'"
    return None


def _check_system(body: Mapping[str, Any]) -> str | None:
    system = body.get("system")
    if system is None or isinstance(system, str):
        return None
    if not isinstance(system, list):
        return "system: Input should be a valid string or a list of text blocks"
    for i, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            return f"system.{i}.type: Input should be 'text'"
        if not block.get("text"):
            return "system: text content blocks must be non-empty"
    return None


def _check_messages(body: Mapping[str, Any]) -> str | None:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: Field required"
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        blocks = _blocks(message)
        if not blocks and not (i == len(messages) - 1 and role == "assistant"):
            return (
                f"messages.{i}: all messages must have non-empty content except for the optional "
                "final assistant message"
            )
        for j, block in enumerate(blocks):
            problem = _check_block(f"messages.{i}.content.{j}", role, block)
            if problem is not None:
                return problem
    return None


def _check_block(where: str, role: str, block: Mapping[str, Any]) -> str | None:
    kind = block.get("type")
    if kind not in _BLOCK_TYPES:
        return f"{where}: Input tag '{kind}' found using 'type' does not match any of the expected tags"
    if kind == "text" and (problem := _check_text(block.get("text"))):
        return problem
    if kind == "tool_use":
        if role != "assistant":
            return f"{where}: `tool_use` blocks can only be in `assistant` messages"
        if not isinstance(block.get("name"), str) or not re.fullmatch(NAME_PATTERN, block["name"]):
            return f"{where}.tool_use.name: String should match pattern '^{NAME_PATTERN}$'"
        if not isinstance(block.get("input"), dict):
            return f"{where}.tool_use.input: Input should be a valid dictionary"
    if kind == "tool_result" and role != "user":
        return f"{where}: `tool_result` blocks can only be in `user` messages"
    if kind == "tool_result":
        return _check_tool_result_content(where, block.get("content"))
    if kind == "image":
        return _check_image(where, block)
    return None


_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def _check_text(text: object) -> str | None:
    if not text:
        return "messages: text content blocks must be non-empty"
    if isinstance(text, str) and not text.strip():
        return "messages: text content blocks must contain non-whitespace text"
    return None


def _check_tool_result_content(where: str, content: object) -> str | None:
    """A tool result's content: a string, or a list of text, image and tool_reference blocks (no
    audio, no tool use); which tools a reference may name is checked with the request's tools."""
    if content is None or isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"{where}.tool_result.content: Input should be a valid string or list"
    for k, inner in enumerate(content):
        kind = inner.get("type") if isinstance(inner, dict) else None
        if kind not in ("text", "image", "search_result", "document", "tool_reference"):
            return f"{where}.tool_result.content.{k}: Input tag '{kind}' found using 'type' does not match"
        if kind == "text" and (problem := _check_text(inner.get("text"))):
            return problem
        if kind == "image" and (problem := _check_image(f"{where}.tool_result.content.{k}", inner)):
            return problem
    return None


def _check_image(where: str, block: Mapping[str, Any]) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") not in ("base64", "url"):
        return f"{where}.image.source: Input tag found using 'type' does not match any of the expected tags"
    if source["type"] == "base64":
        if source.get("media_type") not in _IMAGE_TYPES:
            return f"{where}.image.source.base64.media_type: Input should be {', '.join(_IMAGE_TYPES)}"
        try:
            base64.b64decode(str(source.get("data")), validate=True)
        except ValueError:
            return f"{where}.image.source.base64.data: The image data is not valid base64"
    return None


def _check_pairing(body: Mapping[str, Any]) -> str | None:
    messages = body["messages"]
    seen: set[str] = set()
    for i, message in enumerate(messages):
        for j, block in enumerate(_blocks(message)):
            if block.get("type") == "tool_use" and block.get("id") in seen:
                return f"messages.{i}.content.{j}: `tool_use` ids must be unique"
            if block.get("type") == "tool_use":
                seen.add(block.get("id"))
    for i, message in enumerate(messages):
        problem = _check_results(i, message, messages[i - 1] if i else None)
        if problem is None and message.get("role") == "assistant":
            problem = _check_answered(i, message, messages[i + 1] if i + 1 < len(messages) else None)
        if problem is not None:
            return problem
    return None


def _ids(message: Mapping[str, Any] | None, kind: str, key: str) -> list[str]:
    return [str(b.get(key)) for b in _blocks(message) if b.get("type") == kind] if message else []


def _check_answered(i: int, message: Mapping[str, Any], following: Mapping[str, Any] | None) -> str | None:
    answered = (
        _ids(following, "tool_result", "tool_use_id") if following and following["role"] == "user" else []
    )
    missing = [use_id for use_id in _ids(message, "tool_use", "id") if use_id not in answered]
    if not missing:
        return None
    return (
        f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    )


def _check_results(i: int, message: Mapping[str, Any], previous: Mapping[str, Any] | None) -> str | None:
    asked = _ids(previous, "tool_use", "id") if previous and previous["role"] == "assistant" else []
    blocks = _blocks(message)
    kinds = [block.get("type") for block in blocks]
    seen: set[str] = set()
    for j, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            continue
        use_id = block.get("tool_use_id")
        if use_id not in asked or use_id in seen:
            return (
                f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{use_id}. Each `tool_result` block must have a corresponding `tool_use` block in the "
                "previous message."
            )
        seen.add(use_id)
        if any(kind != "tool_result" for kind in kinds[:j]):
            return f"messages.{i}: `tool_result` blocks must come first in the content of a user message"
    return None


if __name__ == "__main__":
    from tests.fakes.server_process import run_fake_cli

    sys.exit(run_fake_cli(AnthropicShape(), sys.argv[1:]))
