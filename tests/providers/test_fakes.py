"""The fake servers themselves. They are only useful if they refuse what the real APIs refuse, so the
load-bearing corpus is the one that must be refused; the second corpus (must pass) keeps them from
refusing what the real APIs accept. Then: error shapes, non-streaming JSON, scripts, own process."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall

from levelcode.core.messages import Message, ToolResult, user_text
from levelcode.core.outcome import ToolOutcome
from levelcode.providers.base import ProviderSettings
from levelcode.providers.openai_provider import OpenAIProvider
from tests.fakes.fake_anthropic import AnthropicShape, fake_anthropic
from tests.fakes.fake_openai import OpenAIShape, fake_openai
from tests.fakes.scripted_server import (
    DEFAULT_API_KEY,
    Fail,
    RecordedRequest,
    Reply,
    ToolCall,
    load_script,
)
from tests.fakes.server_process import spawn_fake
from tests.providers.support import SchemaTool, complete


def _anthropic_tool(name: str) -> dict[str, Any]:
    return {"name": name, "input_schema": {"type": "object"}}


def _use(use_id: str, name: str = "read_file") -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": {}}


def _result(use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": "ok"}


PNG_DATA = "iVBORw0KGgo="


def _media_result(kind: str) -> dict[str, Any]:
    """A tool result holding text and one picture or sound, the way a client might send it."""
    if kind == "audio":
        media: dict[str, Any] = {"type": "audio", "source": {"type": "base64", "media_type": "audio/wav"}}
    else:
        source = {"type": "base64", "media_type": f"image/{kind}", "data": PNG_DATA}
        media = {"type": "image", "source": source}
    return {"type": "tool_result", "tool_use_id": "u1", "content": [{"type": "text", "text": "shot"}, media]}


def _anthropic(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"model": "fake-claude", "max_tokens": 100, "messages": messages, "tools": tools or []}


HI = {"role": "user", "content": "hi"}
ANTHROPIC_REFUSED = {
    "space in tool name": _anthropic([HI], [_anthropic_tool("read file")]),
    "slash in tool name": _anthropic([HI], [_anthropic_tool("fs/read")]),
    "129-char tool name": _anthropic([HI], [_anthropic_tool("x" * 129)]),
    "newline after tool name": _anthropic([HI], [_anthropic_tool("read\n")]),
    "duplicate tool names": _anthropic([HI], [_anthropic_tool("a"), _anthropic_tool("a")]),
    "schema not an object": _anthropic([HI], [{"name": "a", "input_schema": {"type": "string"}}]),
    "tool_use unanswered": _anthropic([HI, {"role": "assistant", "content": [_use("u1")]}, HI]),
    "tool_use answered late": _anthropic(
        [HI, {"role": "assistant", "content": [_use("u1")]}, HI, {"role": "user", "content": [_result("u1")]}]
    ),
    "one of two answered": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1"), _use("u2")]},
            {"role": "user", "content": [_result("u1")]},
        ]
    ),
    "result answers nothing": _anthropic([{"role": "user", "content": [_result("u9")]}]),
    "result answered twice": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1"), _result("u1")]},
        ]
    ),
    "text before results": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [{"type": "text", "text": "x"}, _result("u1")]},
        ]
    ),
    "illegal name in history": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1", "a:b")]},
            {"role": "user", "content": [_result("u1")]},
        ]
    ),
    "empty text block": _anthropic([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
    "blank text block": _anthropic([{"role": "user", "content": [{"type": "text", "text": " \n\n"}]}]),
    "blank assistant text before a tool use": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [{"type": "text", "text": "\n\n"}, _use("u1")]},
            {"role": "user", "content": [_result("u1")]},
        ]
    ),
    "empty user message": _anthropic([{"role": "user", "content": []}]),
    "tool_use id used twice": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1")]},
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1")]},
        ]
    ),
    "system role in messages": _anthropic([HI, {"role": "system", "content": "x"}]),
    "assistant first": _anthropic([{"role": "assistant", "content": "x"}, HI]),
    "no max_tokens": {"model": "fake-claude", "messages": [HI]},
    "audio in a tool result": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_media_result("audio")]},
        ]
    ),
    "tiff image in a tool result": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_media_result("tiff")]},
        ]
    ),
}
# what each refusal must be about (so a case cannot pass by tripping over an unrelated rule)
ANTHROPIC_REASONS = {
    "duplicate tool names": "unique",
    "schema not an object": "input_schema",
    "result answers nothing": "unexpected `tool_use_id`",
    "result answered twice": "unexpected `tool_use_id`",
    "text before results": "must come first",
    "illegal name in history": "messages.1.content.0.tool_use.name",
    "empty text block": "non-empty",
    "blank text block": "non-whitespace",
    "blank assistant text before a tool use": "non-whitespace",
    "empty user message": "non-empty content",
    "tool_use id used twice": "ids must be unique",
    "system role in messages": "messages.1.role",
    "assistant first": "first message",
    "no max_tokens": "max_tokens",
    "audio in a tool result": "tool_result.content.1: Input tag 'audio'",
    "tiff image in a tool result": "media_type",
}
ANTHROPIC_ACCEPTED = {
    "plain": _anthropic([HI]),
    "128-char tool name": _anthropic([HI], [_anthropic_tool("x" * 128)]),
    "answered in any order": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1"), _use("u2")]},
            {"role": "user", "content": [_result("u2"), _result("u1")]},
        ]
    ),
    "text after results": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1"), {"type": "text", "text": "more"}]},
        ]
    ),
    "final assistant prefill": _anthropic([HI, {"role": "assistant", "content": "Sure"}]),
    "two user messages in a row (the API joins them)": _anthropic([HI, HI]),
    "several text blocks in one user message": _anthropic(
        [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    ),
    "png image in a tool result": _anthropic(
        [
            HI,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_media_result("png")]},
        ]
    ),
}


def _openai_tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def _calls(*ids: str, name: str = "read_file") -> dict[str, Any]:
    calls = [{"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _tool(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def _image_part(url: str = "data:image/png;base64," + PNG_DATA) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url}}


def _openai(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {"model": "fake-gpt", "messages": messages, "tools": tools or [], **extra}


OPENAI_REFUSED = {
    "dot in tool name": _openai([HI], [_openai_tool("fs.read")]),
    "65-char tool name": _openai([HI], [_openai_tool("x" * 65)]),
    "newline after tool name": _openai([HI], [_openai_tool("read\n")]),
    "duplicate tool names": _openai([HI], [_openai_tool("a"), _openai_tool("a")]),
    "calls unanswered": _openai([HI, _calls("c1"), HI]),
    "one of two answered": _openai([HI, _calls("c1", "c2"), _tool("c1"), HI]),
    "answered after a user message": _openai([HI, _calls("c1"), HI, _tool("c1")]),
    "tool message answers nothing": _openai([HI, _tool("c9")]),
    "answered twice": _openai([HI, _calls("c1"), _tool("c1"), _tool("c1")]),
    "unanswered at the end": _openai([HI, _calls("c1")]),
    "illegal name in history": _openai([HI, _calls("c1", name="a b"), _tool("c1")]),
    "unknown role": _openai([{"role": "critic", "content": "x"}]),
    "stream_options without stream": _openai([HI], stream_options={"include_usage": True}),
    "no messages": _openai([]),
    "user message without content": _openai([{"role": "user"}]),
    "user message with null content": _openai([{"role": "user", "content": None}]),
    "assistant message with neither content nor calls": _openai(
        [HI, {"role": "assistant", "content": None}, HI]
    ),
    "image in a tool message": _openai([HI, _calls("c1"), {**_tool("c1"), "content": [_image_part()]}]),
    "image URL that is not https or data": _openai(
        [{"role": "user", "content": [_image_part("ftp://x/y.png")]}]
    ),
    "audio in an unknown format": _openai(
        [
            {
                "role": "user",
                "content": [{"type": "input_audio", "input_audio": {"data": "AA==", "format": "ogg"}}],
            }
        ]
    ),
}
OPENAI_REASONS = {
    "65-char tool name": "maximum length 64",
    "duplicate tool names": "more than one tool",
    "tool message answers nothing": "must be a response to a preceeding message",
    "answered twice": "must be a response to a preceeding message",
    "illegal name in history": "messages[1].tool_calls[0].function.name",
    "unknown role": "'critic'",
    "stream_options without stream": "stream_options",
    "no messages": "too short",
    "user message without content": "Missing required parameter: 'messages[0].content'",
    "user message with null content": "Missing required parameter: 'messages[0].content'",
    "assistant message with neither content nor calls": "expected a string, got null",
    "image in a tool message": "is not allowed for role 'tool'",
    "image URL that is not https or data": "Invalid image URL",
    "audio in an unknown format": "'wav' or 'mp3'",
}
OPENAI_ACCEPTED = {
    "plain": _openai([HI]),
    "64-char tool name": _openai([HI], [_openai_tool("x" * 64)]),
    "answered in any order": _openai([HI, _calls("c1", "c2"), _tool("c2"), _tool("c1"), HI]),
    "system and developer": _openai(
        [{"role": "system", "content": "s"}, {"role": "developer", "content": "d"}, HI]
    ),
    "stream_options with stream": _openai([HI], stream=True, stream_options={"include_usage": True}),
    "two user messages in a row": _openai([HI, HI]),
    "assistant calls without content": _openai([HI, _calls("c1"), _tool("c1")]),
    "image after the tool messages": _openai(
        [
            HI,
            _calls("c1"),
            _tool("c1"),
            {"role": "user", "content": [{"type": "text", "text": "x"}, _image_part()]},
        ]
    ),
}


@pytest.mark.parametrize("case", sorted(ANTHROPIC_REFUSED))
def test_fake_anthropic_refuses(case: str) -> None:
    error = AnthropicShape().validate(ANTHROPIC_REFUSED[case])
    assert error is not None
    assert error.status == 400
    default = (
        "tools.0.custom.name" if "tool name" in case else "without `tool_result` blocks immediately after"
    )
    assert ANTHROPIC_REASONS.get(case, default) in error.message


@pytest.mark.parametrize("case", sorted(ANTHROPIC_ACCEPTED))
def test_fake_anthropic_accepts(case: str) -> None:
    assert AnthropicShape().validate(ANTHROPIC_ACCEPTED[case]) is None


@pytest.mark.parametrize("case", sorted(OPENAI_REFUSED))
def test_fake_openai_refuses(case: str) -> None:
    error = OpenAIShape().validate(OPENAI_REFUSED[case])
    assert error is not None
    assert error.status == 400
    default = "does not match pattern" if "tool name" in case else "did not have response messages"
    assert OPENAI_REASONS.get(case, default) in error.message


@pytest.mark.parametrize("case", sorted(OPENAI_ACCEPTED))
def test_fake_openai_accepts(case: str) -> None:
    assert OpenAIShape().validate(OPENAI_ACCEPTED[case]) is None


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"content-type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_anthropic_errors_have_the_api_shape() -> None:
    refused = ANTHROPIC_REFUSED["space in tool name"]
    with fake_anthropic([Reply(text="x")]) as server:
        url = server.base_url + "/v1/messages"
        status, body = _post(url, refused, {"x-api-key": DEFAULT_API_KEY})
        no_key_status, no_key_body = _post(url, refused, {})
        model_status, model_body = _post(
            url, {**refused, "model": "claude-nope"}, {"x-api-key": DEFAULT_API_KEY}
        )
    assert status == 400
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert "tools.0.custom.name" in body["error"]["message"]
    assert (no_key_status, no_key_body["error"]["type"]) == (401, "authentication_error")
    assert (model_status, model_body["error"]) == (
        404,
        {"type": "not_found_error", "message": "model: claude-nope"},
    )
    assert len(server.requests) == 3  # every request is recorded, refused or not


def test_openai_errors_have_the_api_shape() -> None:
    with fake_openai([Reply(text="x")]) as server:
        url = server.base_url + "/chat/completions"
        status, body = _post(
            url, OPENAI_REFUSED["65-char tool name"], {"authorization": f"Bearer {DEFAULT_API_KEY}"}
        )
    assert status == 400
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["param"] == "tools[0].function.name"
    assert body["error"]["code"] == "string_above_max_length"


async def test_non_streaming_replies_parse_with_the_real_sdks() -> None:
    reply = Reply(text="Looking.", tool_calls=(ToolCall("read_file", {"path": "a"}),))
    with fake_anthropic([reply]) as a_server, fake_openai([reply]) as o_server:
        async with anthropic.AsyncAnthropic(api_key=DEFAULT_API_KEY, base_url=a_server.base_url) as a_client:
            message = await a_client.messages.create(
                model="fake-claude", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        async with openai.AsyncOpenAI(api_key=DEFAULT_API_KEY, base_url=o_server.base_url) as o_client:
            completion = await o_client.chat.completions.create(
                model="fake-gpt", messages=[{"role": "user", "content": "hi"}]
            )
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.stop_reason == "tool_use"
    choice = completion.choices[0]
    assert choice.message.content == "Looking."
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    call = choice.message.tool_calls[0]
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert json.loads(call.function.arguments) == {"path": "a"}


async def test_a_callable_step_sees_the_request() -> None:
    def echo_results(request: RecordedRequest) -> Reply:
        last = request.body["messages"][-1]["content"]
        return Reply(text=f"you said {last!r}")

    with fake_openai([echo_results, Fail(400, "custom refusal")]) as server:
        provider = OpenAIProvider(ProviderSettings("openai", "fake-gpt", server.base_url, DEFAULT_API_KEY))
        turn = await complete(provider, [user_text("ping")])
        with pytest.raises(Exception, match="custom refusal"):
            await complete(provider, [user_text("again")])
        await provider.aclose()
    assert turn.message.text == "you said 'ping'"


async def test_an_exhausted_script_says_so() -> None:
    with fake_openai([]) as server:
        provider = OpenAIProvider(ProviderSettings("openai", "fake-gpt", server.base_url, DEFAULT_API_KEY))
        with pytest.raises(Exception, match="script has no step left"):
            await complete(provider, [user_text("hi")])
        await provider.aclose()


def test_a_json_script_loads(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    steps = [
        {"tool_calls": [{"name": "read_file", "input": {"path": "a"}}]},
        {"error": {"status": 429, "message": "slow"}},
        {"text": "Done.", "hang": True},
    ]
    path.write_text(json.dumps({"steps": steps}))
    assert load_script(path) == [
        Reply(tool_calls=(ToolCall("read_file", {"path": "a"}),)),
        Fail(429, "slow"),
        Reply(text="Done.", hang=True),
    ]
    path.write_text(json.dumps(steps))
    assert len(load_script(path)) == 3


async def test_a_fake_in_its_own_process(tmp_path: Path) -> None:
    script: list[dict[str, Any]] = [
        {
            "text": "Reading.",
            "tool_calls": [{"name": "read_file", "input": {"path": "a.txt"}, "id": "call_1"}],
        },
        {"text": "Done."},
    ]
    with spawn_fake("openai", script, tmp_path) as fake:
        provider = OpenAIProvider(ProviderSettings("openai", "fake-gpt", fake.base_url, DEFAULT_API_KEY))
        first = await complete(provider, [user_text("go")], tools=(SchemaTool("read_file"),))
        transcript = [
            user_text("go"),
            first.message,
            Message("user", (ToolResult("call_1", ToolOutcome("hello")),)),
        ]
        second = await complete(provider, transcript, tools=(SchemaTool("read_file"),))
        await provider.aclose()
        logged = fake.requests()
        port = fake.port_file.read_text()
    assert fake.process.returncode is not None  # stopped on leaving the block
    assert second.message.text == "Done."
    assert fake.base_url == f"http://127.0.0.1:{port}/v1"
    assert [entry["path"] for entry in logged] == ["/v1/chat/completions"] * 2
    assert logged[1]["body"]["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "hello"}
