"""The translate step, pure. Load-bearing: whatever paired transcript the loop holds (empty texts,
several tool uses, failed results), each API's translation is one that API accepts — checked with
the fake servers' own validators — with tool results where each API wants them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, user_text
from levelcode.core.outcome import Media, ToolOutcome
from levelcode.core.tool_offers import DeferredTool
from levelcode.providers.translate import (
    EMPTY_MESSAGE_TEXT,
    anthropic_messages,
    anthropic_tools,
    invalid_arguments_error,
    openai_messages,
    openai_stop_reason,
    openai_tools,
    parse_tool_arguments,
    referable_tools,
    tool_use_of,
)
from tests.fakes.fake_anthropic import AnthropicShape
from tests.fakes.fake_openai import OpenAIShape
from tests.providers.support import SchemaTool

USE_A = ToolUse("id_a", "read_file", {"path": "a.txt"})
USE_B = ToolUse("id_b", "run_command", {"command": "ls"})
TRANSCRIPT = [
    user_text("look at a.txt"),
    Message("assistant", (TextBlock("Reading."), USE_A, USE_B)),
    Message(
        "user",
        (
            TextBlock("also, hurry"),
            ToolResult("id_a", ToolOutcome("hello")),
            ToolResult("id_b", ToolOutcome("denied", True)),
        ),
    ),
]


def test_anthropic_results_lead_the_next_user_message() -> None:
    shaped = anthropic_messages(TRANSCRIPT)
    assert shaped[1]["content"] == [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "id_a", "name": "read_file", "input": {"path": "a.txt"}},
        {"type": "tool_use", "id": "id_b", "name": "run_command", "input": {"command": "ls"}},
    ]
    assert shaped[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "id_a", "content": "hello"},
            {"type": "tool_result", "tool_use_id": "id_b", "content": "denied", "is_error": True},
            {"type": "text", "text": "also, hurry"},
        ],
    }


def test_anthropic_system_prompt_is_not_a_message() -> None:
    assert [message["role"] for message in anthropic_messages(TRANSCRIPT)] == ["user", "assistant", "user"]


def test_openai_results_are_tool_messages_right_after_the_call() -> None:
    shaped = openai_messages("Be brief.", TRANSCRIPT)
    assert shaped[0] == {"role": "system", "content": "Be brief."}
    assert shaped[2] == {
        "role": "assistant",
        "content": "Reading.",
        "tool_calls": [
            {
                "id": "id_a",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
            },
            {
                "id": "id_b",
                "type": "function",
                "function": {"name": "run_command", "arguments": '{"command": "ls"}'},
            },
        ],
    }
    assert shaped[3:] == [
        {"role": "tool", "tool_call_id": "id_a", "content": "hello"},
        {"role": "tool", "tool_call_id": "id_b", "content": "ERROR: denied"},
        {"role": "user", "content": "also, hurry"},
    ]


def test_openai_error_prefix_is_not_doubled() -> None:
    shaped = openai_messages(
        "", [Message("user", (ToolResult("x", ToolOutcome("ERROR: no such file", True)),))]
    )
    assert shaped == [{"role": "tool", "tool_call_id": "x", "content": "ERROR: no such file"}]


def test_openai_without_system_prompt_and_call_without_text() -> None:
    shaped = openai_messages("", [user_text("hi"), Message("assistant", (USE_A,))])
    assert shaped[0] == {"role": "user", "content": "hi"}
    assert shaped[1]["content"] is None


def test_empty_messages_get_a_placeholder_rather_than_poisoning_the_transcript() -> None:
    empty = Message("assistant", (TextBlock(""),))
    assert anthropic_messages([empty])[0]["content"] == [{"type": "text", "text": EMPTY_MESSAGE_TEXT}]
    assert openai_messages("", [empty]) == [{"role": "assistant", "content": EMPTY_MESSAGE_TEXT}]


def test_blocks_in_the_wrong_role_are_a_programming_error() -> None:
    with pytest.raises(ValueError, match="user message"):
        openai_messages("", [Message("user", (USE_A,))])
    with pytest.raises(ValueError, match="assistant message"):
        openai_messages("", [Message("assistant", (ToolResult("x", ToolOutcome("y")),))])


def test_tool_shapes() -> None:
    schema = {"properties": {"path": {"type": "string"}}}
    tool = SchemaTool("read_file", "Reads.", schema)
    expected_schema = {"type": "object", **schema}
    assert anthropic_tools([tool]) == [
        {"name": "read_file", "description": "Reads.", "input_schema": expected_schema}
    ]
    assert openai_tools([tool]) == [
        {
            "type": "function",
            "function": {"name": "read_file", "description": "Reads.", "parameters": expected_schema},
        }
    ]
    assert "description" not in anthropic_tools([SchemaTool("t", "")])[0]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"path": "a"}', {"path": "a"}),
        ("", {}),
        ("  ", {}),
        ('{"path": "a"', None),
        ("[1, 2]", None),
        ('"just a string"', None),
        ("null", None),
    ],
)
def test_parse_tool_arguments(raw: str, expected: dict[str, object] | None) -> None:
    assert parse_tool_arguments(raw) == expected
    use = tool_use_of("c1", "read_file", raw)
    assert (use.input, use.invalid_arguments) == ((expected, None) if expected is not None else ({}, raw))


def test_invalid_arguments_error_only_for_the_flag() -> None:
    assert invalid_arguments_error(ToolUse("c1", "read_file", {"path": "a"})) is None
    # arguments are the model's own words: no key inside them can make a valid call invalid
    assert invalid_arguments_error(ToolUse("c1", "t", {"_levelcode_invalid_arguments": "x"})) is None
    error = invalid_arguments_error(ToolUse("c1", "read_file", {}, invalid_arguments="{oops"))
    assert error is not None
    assert error.is_error
    assert error.text.startswith("ERROR: ")
    assert "{oops" in error.text


@given(st.text())
def test_parse_tool_arguments_never_raises(raw: str) -> None:
    parsed = parse_tool_arguments(raw)
    assert parsed is None or isinstance(parsed, dict)
    assert isinstance(tool_use_of("c1", "t", raw).input, dict)


@given(
    st.dictionaries(st.text(), st.recursive(st.none() | st.integers() | st.text(), st.lists, max_leaves=5))
)
def test_parse_tool_arguments_round_trips_objects(value: dict[str, Any]) -> None:
    assert parse_tool_arguments(json.dumps(value)) == value


@pytest.mark.parametrize(
    ("finish", "has_calls", "expected"),
    [
        ("stop", False, "end_turn"),
        ("length", False, "max_tokens"),
        ("tool_calls", True, "tool_use"),
        ("stop", True, "tool_use"),  # some local servers say "stop" after tool calls
        (None, False, "end_turn"),
        ("something_new", False, "something_new"),
    ],
)
def test_openai_stop_reason(finish: str | None, has_calls: bool, expected: str) -> None:
    assert openai_stop_reason(finish, has_tool_calls=has_calls) == expected


# --- property: every paired transcript translates into a request the API accepts ---------------

names = st.from_regex(r"[a-zA-Z0-9_-]{1,64}", fullmatch=True)
texts = st.sampled_from(["", "ok", "line\nbreak", "ünïcode 🙂"])


@st.composite
def paired_transcripts(draw: st.DrawFn) -> list[Message]:
    messages = [user_text(draw(texts) or "start")]
    for round_number in range(draw(st.integers(0, 4))):
        uses = [
            ToolUse(f"id_{round_number}_{i}", draw(names), {"n": i}) for i in range(draw(st.integers(0, 3)))
        ]
        messages.append(Message("assistant", (TextBlock(draw(texts)), *uses)))
        results = [
            ToolResult(use.id, ToolOutcome(draw(texts), draw(st.booleans())))
            for use in draw(st.permutations(uses))
        ]
        messages.append(Message("user", (TextBlock(draw(texts)), *results)))
    return messages


@given(paired_transcripts(), st.lists(names, unique=True, max_size=4), texts)
def test_paired_transcripts_are_accepted_by_both_apis(
    messages: list[Message], tool_names: list[str], system: str
) -> None:
    tools = [SchemaTool(name) for name in tool_names]
    anthropic_body = {
        "model": "m",
        "max_tokens": 10,
        "messages": anthropic_messages(messages),
        "tools": anthropic_tools(tools),
    }
    openai_body = {"model": "m", "messages": openai_messages(system, messages), "tools": openai_tools(tools)}
    assert AnthropicShape().validate(anthropic_body) is None
    assert OpenAIShape().validate(openai_body) is None


# --- media: pictures and sounds a tool returned ---------------------------------------------------

PNG = "iVBORw0KGgo="
WAV = "UklGRg=="


def _media_transcript(prompt: str = "") -> list[Message]:
    outcome = ToolOutcome(
        "[image 1: image/png, 8 bytes, attached]\n[audio 2: audio/wav, 4 bytes, attached]",
        media=(Media("image", "image/png", PNG), Media("audio", "audio/wav", WAV)),
    )
    answer: list[ToolResult | TextBlock] = [ToolResult("call_1", outcome)]
    if prompt:
        answer.append(TextBlock(prompt))
    return [
        user_text("take a screenshot"),
        Message("assistant", (ToolUse("call_1", "browser__screenshot", {}),)),
        Message("user", tuple(answer)),
    ]


def test_anthropic_tool_results_carry_image_blocks_and_name_audio() -> None:
    result = anthropic_messages(_media_transcript())[2]["content"][0]
    assert result["type"] == "tool_result"
    assert result["content"] == [
        {
            "type": "text",
            "text": "[image 1: image/png, 8 bytes, attached]\n[audio 2: audio/wav, 4 bytes, attached]",
        },
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": "[audio (audio/wav) not sent: this API takes no audio]"},
    ]


def test_openai_media_follow_the_tool_messages_in_a_user_message() -> None:
    shaped = openai_messages("", _media_transcript("and now?"))
    assert [m["role"] for m in shaped] == ["user", "assistant", "tool", "user"]
    assert isinstance(shaped[2]["content"], str)  # a tool message takes text only
    parts = shaped[3]["content"]
    assert parts[0] == {
        "type": "text",
        "text": "Attachments returned by tool call call_1 (its result is above):",
    }
    assert parts[1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    assert parts[2] == {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}}
    assert parts[3] == {"type": "text", "text": "and now?"}


def test_results_without_media_keep_their_plain_shape() -> None:
    transcript = _media_transcript()
    plain = Message("user", (ToolResult("call_1", ToolOutcome("text only")),))
    shaped = openai_messages("", [*transcript[:2], plain])
    assert shaped[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "text only"}
    assert anthropic_messages([*transcript[:2], plain])[2]["content"][0]["content"] == "text only"


# --- deferred tools ------------------------------------------------------------------------------

SEARCH_USE = ToolUse("id_s", "tool_search", {"query": "issues"})
SEARCHED = [
    user_text("file an issue"),
    Message("assistant", (SEARCH_USE,)),
    Message("user", (ToolResult("id_s", ToolOutcome("Found 2 tools", references=("gh__b", "gone__x"))),)),
]
DEFERRED = [SchemaTool("tool_search"), DeferredTool("gh__a", "a"), DeferredTool("gh__b", "b", found_at=0)]


def test_anthropic_gets_every_deferred_tool_in_place_with_defer_loading() -> None:
    shaped = anthropic_tools(DEFERRED)
    assert [t["name"] for t in shaped] == ["tool_search", "gh__a", "gh__b"]
    assert [t.get("defer_loading") for t in shaped] == [None, True, True]


def test_a_search_result_loads_by_reference_only_tools_the_request_defers() -> None:
    shaped = anthropic_messages(SEARCHED, referable=referable_tools(DEFERRED))
    assert shaped[2]["content"][0]["content"] == [
        {"type": "text", "text": "Found 2 tools"},
        {"type": "tool_reference", "tool_name": "gh__b"},  # gone__x is offered no more: no reference
    ]
    body = {"model": "m", "max_tokens": 10, "messages": shaped, "tools": anthropic_tools(DEFERRED)}
    assert AnthropicShape().validate(body) is None
    assert anthropic_messages(SEARCHED)[2]["content"][0]["content"] == "Found 2 tools"


def test_openai_gets_found_tools_after_the_others_in_the_order_found() -> None:
    tools = [
        SchemaTool("read_file"),
        DeferredTool("gh__a", "a", found_at=1),
        DeferredTool("gh__c", "c"),
        DeferredTool("gh__b", "b", found_at=0),
    ]
    assert [t["function"]["name"] for t in openai_tools(tools)] == ["read_file", "gh__b", "gh__a"]
    assert OpenAIShape().validate({"model": "m", "messages": openai_messages("s", SEARCHED)}) is None
