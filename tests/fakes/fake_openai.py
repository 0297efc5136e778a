"""A fake OpenAI Chat Completions API (`POST /v1/chat/completions`, and the model list
`GET /v1/models`) on 127.0.0.1, for the real `openai` SDK, standing in for OpenAI, OpenRouter,
Ollama, vLLM and llama.cpp alike.

    with fake_openai([Reply(text="Hello")]) as server:
        OpenAIProvider(ProviderSettings("openai", "gpt-5.5", server.base_url, "test-key"))

Refuses, in the API's own error shape, what the real API refuses and we could get wrong: tool
names outside `^[a-zA-Z0-9_-]{1,64}$` (in `tools` and in the transcript), duplicate tool names, a
message without content (an assistant message may leave it out only when it calls tools), an
assistant message's `tool_calls` not each answered by a `role: tool` message right after it, a
`tool` message answering nothing, `stream_options` without `stream`, a missing key (401), an
unknown model (404), a prompt over `context_window` tokens (400 `context_length_exceeded`).
Streams `chat.completion.chunk`s exactly as the API does, tool calls in pieces by index, then
`[DONE]`. Run alone:
`python -m tests.fakes.fake_openai --script FILE.json --port-file F` (see `server_process`).
"""

from __future__ import annotations

import re
import sys
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from levelcode.providers.factory import DEFAULT_MODELS
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

MAX_NAME_LENGTH = 64
MODELS = frozenset({DEFAULT_MODELS["openai"], "gpt-5.4-mini", "fake-gpt", "qwen3-coder:30b"})
_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def fake_openai(
    steps: Iterable[Step] = (), *, context_window: int | None = None, **options: Any
) -> ScriptedServer:
    """An OpenAI-shaped `ScriptedServer`; `with` starts and stops it. `context_window`: refuse a
    longer prompt (tools and messages) as the API does; other options: see ScriptedServer."""
    return ScriptedServer(OpenAIShape(context_window), steps, **options)


def offered_tool_names(request: RecordedRequest) -> list[str]:
    return [tool["function"]["name"] for tool in request.body.get("tools", [])]


def tool_messages(request: RecordedRequest) -> list[dict[str, Any]]:
    """The `role: tool` messages at the end of the request's transcript."""
    found: list[dict[str, Any]] = []
    for message in reversed(request.body["messages"]):
        if message.get("role") != "tool":
            break
        found.insert(0, message)
    return found


class OpenAIShape:
    name = "openai"
    path = "/v1/chat/completions"
    base_path = "/v1"
    models_path = "/v1/models"
    default_models = MODELS

    def __init__(self, context_window: int | None = None) -> None:
        self.context_window = context_window

    def presented_key(self, headers: Mapping[str, str]) -> str | None:
        auth = headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None

    def bad_key(self, key: str | None) -> ApiError:
        if not key:
            return ApiError(401, "You didn't provide an API key.", code=None)
        return ApiError(401, f"Incorrect API key provided: {key[:3]}***.", code="invalid_api_key")

    def unknown_model(self, model: object) -> ApiError:
        message = f"The model `{model}` does not exist or you do not have access to it."
        return ApiError(404, message, code="model_not_found")

    def validate(self, body: Mapping[str, Any]) -> ApiError | None:
        if body.get("stream_options") is not None and not body.get("stream"):
            message = "The 'stream_options' parameter is only allowed when 'stream' is enabled."
            return ApiError(400, message, param="stream_options")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return ApiError(400, "[] is too short - 'messages'", param="messages", code="empty_array")
        return (
            _check_tools(body.get("tools") or [])
            or _check_messages(messages)
            or _check_pairing(messages)
            or self._check_window(body)
        )

    def _check_window(self, body: Mapping[str, Any]) -> ApiError | None:
        tokens = token_estimate([body.get("tools") or [], body.get("messages")])
        if self.context_window is None or tokens <= self.context_window:
            return None
        message = (
            f"This model's maximum context length is {self.context_window} tokens. However, your "
            f"messages resulted in {tokens} tokens. Please reduce the length of the messages."
        )
        return ApiError(400, message, param="messages", code="context_length_exceeded")

    def error_body(self, error: ApiError) -> dict[str, Any]:
        return {
            "error": {"message": error.message, "type": error.type, "param": error.param, "code": error.code}
        }

    def models_page(self, models: Iterable[str]) -> dict[str, Any]:
        """`GET /v1/models` as the API answers it: one page, every model."""
        entries = [{"id": m, "object": "model", "created": 1_700_000_000, "owned_by": "fake"} for m in models]
        return {"object": "list", "data": entries}

    def response(self, reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
        if reply.tool_calls:
            message["tool_calls"] = [_tool_call(call) for call in reply.tool_calls]
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish_reason(reply)}
        return {**_envelope(body, "chat.completion"), "choices": [choice], "usage": _usage(reply, body)}

    def events(self, reply: Reply, body: Mapping[str, Any]) -> Iterator[bytes | None]:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        yield _chunk(body, {"role": "assistant", "content": "", "refusal": None}, include_usage)
        for piece in text_pieces(reply.text):
            yield _chunk(body, {"content": piece}, include_usage)
        if reply.stops_early:
            yield FAULT_POINT
            return
        for index, call in enumerate(reply.tool_calls):
            yield from _tool_call_chunks(body, index, call, include_usage)
        yield _chunk(body, {}, include_usage, finish_reason=_finish_reason(reply))
        if include_usage:
            yield sse(
                {**_envelope(body, "chat.completion.chunk"), "choices": [], "usage": _usage(reply, body)}
            )
        yield sse("[DONE]")


def _tool_call_chunks(
    body: Mapping[str, Any], index: int, call: ToolCall, include_usage: bool
) -> Iterator[bytes]:
    first = {**_tool_call(call), "index": index}
    first["function"] = {"name": call.name, "arguments": ""}
    yield _chunk(body, {"tool_calls": [first]}, include_usage)
    for piece in json_pieces(call.arguments_json()):
        yield _chunk(
            body, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, include_usage
        )


def _chunk(
    body: Mapping[str, Any], delta: dict[str, Any], include_usage: bool, finish_reason: str | None = None
) -> bytes:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
    chunk: dict[str, Any] = {**_envelope(body, "chat.completion.chunk"), "choices": [choice]}
    if include_usage:
        chunk["usage"] = None
    return sse(chunk)


def _envelope(body: Mapping[str, Any], kind: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:24],
        "object": kind,
        "created": int(time.time()),
        "model": body.get("model"),
        "system_fingerprint": None,
    }


def _tool_call(call: ToolCall) -> dict[str, Any]:
    call_id = call.id or "call_" + uuid.uuid4().hex[:24]
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json()},
    }


def _finish_reason(reply: Reply) -> str:
    return reply.stop_reason or ("tool_calls" if reply.tool_calls else "stop")


def _usage(reply: Reply, body: Mapping[str, Any]) -> dict[str, int]:
    prompt = token_estimate(body.get("messages"))
    completion = token_estimate([reply.text, *(call.arguments_json() for call in reply.tool_calls)])
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


# --- validation ------------------------------------------------------------------------------


def _name_error(name: object, param: str) -> ApiError | None:
    if not isinstance(name, str) or not re.fullmatch(r"[a-zA-Z0-9_-]+", name):
        message = (
            f"Invalid '{param}': string does not match pattern. "
            "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
        )
        return ApiError(400, message, param=param, code="invalid_value")
    if len(name) > MAX_NAME_LENGTH:
        message = (
            f"Invalid '{param}': string too long. Expected a string with maximum length "
            f"{MAX_NAME_LENGTH}, but got a string with length {len(name)} instead."
        )
        return ApiError(400, message, param=param, code="string_above_max_length")
    return None


def _check_tools(tools: list[Any]) -> ApiError | None:
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        function = tool.get("function") if tool.get("type") == "function" else None
        if not isinstance(function, dict):
            param = f"tools[{i}].function"
            return ApiError(
                400, f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter"
            )
        error = _name_error(function.get("name"), f"tools[{i}].function.name")
        if error is not None:
            return error
        if function["name"] in seen:
            message = f"Invalid 'tools': function name '{function['name']}' is used by more than one tool."
            return ApiError(400, message, param="tools", code="invalid_value")
        seen.add(function["name"])
    return None


def _check_messages(messages: list[Any]) -> ApiError | None:
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in _ROLES:
            supported = ", ".join(f"'{r}'" for r in _ROLES)
            message_text = f"Invalid value: '{role}'. Supported values are: {supported}."
            return ApiError(400, message_text, param=f"messages[{i}].role", code="invalid_value")
        for j, call in enumerate(message.get("tool_calls") or []):
            error = _name_error(
                (call.get("function") or {}).get("name"), f"messages[{i}].tool_calls[{j}].function.name"
            )
            if error is not None:
                return error
        error = _check_present(i, message) or _check_content(i, role, message.get("content"))
        if error is not None:
            return error
    return None


def _check_present(i: int, message: Mapping[str, Any]) -> ApiError | None:
    """Every message has content, except an assistant message that makes tool calls."""
    if message.get("content") is not None:
        return None
    if message.get("role") == "assistant" and message.get("tool_calls"):
        return None
    if message.get("role") == "assistant":
        text = "Invalid value for 'content': expected a string, got null."
        return ApiError(400, text, param=f"messages.[{i}].content", code="invalid_value")
    text = f"Missing required parameter: 'messages[{i}].content'."
    return ApiError(400, text, param=f"messages[{i}].content", code="missing_required_parameter")


_PART_TYPES = {"user": ("text", "image_url", "input_audio", "file"), "tool": ("text",), "system": ("text",)}
_DATA_IMAGE = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}")


def _check_content(i: int, role: str, content: object) -> ApiError | None:
    """Content parts as Chat Completions takes them: images and audio only in user messages."""
    if not isinstance(content, list):
        return None
    allowed = _PART_TYPES.get(role, ("text",))
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            text = f"Invalid 'messages[{i}].content[{j}]': type '{kind}' is not allowed for role '{role}'."
            return ApiError(400, text, param=f"messages[{i}].content[{j}]", code="invalid_value")
        if kind == "image_url" and not _valid_image_url((part.get("image_url") or {}).get("url")):
            text = "Invalid image URL: expected an https URL or a base64 data URL of a supported image type."
            return ApiError(
                400, text, param=f"messages[{i}].content[{j}].image_url.url", code="invalid_value"
            )
        if kind == "input_audio" and (part.get("input_audio") or {}).get("format") not in ("wav", "mp3"):
            text = "Invalid value for 'format': expected 'wav' or 'mp3'."
            return ApiError(
                400, text, param=f"messages[{i}].content[{j}].input_audio.format", code="invalid_value"
            )
    return None


def _valid_image_url(url: object) -> bool:
    return isinstance(url, str) and (url.startswith("https://") or _DATA_IMAGE.fullmatch(url) is not None)


def _check_pairing(messages: list[Any]) -> ApiError | None:
    waiting: list[str] = []  # ids of the last assistant message's calls not answered yet
    asked_at = -1
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            if message.get("tool_call_id") not in waiting:
                text = (
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'."
                )
                return ApiError(400, text, param=f"messages.[{i}].role")
            waiting.remove(message["tool_call_id"])
            continue
        if waiting:
            return _unanswered(asked_at, waiting)
        waiting = [call.get("id") for call in message.get("tool_calls") or []]
        asked_at = i
    return _unanswered(asked_at, waiting) if waiting else None


def _unanswered(index: int, ids: list[str]) -> ApiError:
    message = (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(ids)}"
    )
    return ApiError(400, message, param=f"messages.[{index}].role")


if __name__ == "__main__":
    from tests.fakes.server_process import run_fake_cli

    sys.exit(run_fake_cli(OpenAIShape(), sys.argv[1:]))
