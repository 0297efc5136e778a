"""Prompt caching on Anthropic requests. Load-bearing directions: consecutive requests of a
session share their prefix (tools, system text, earlier turns) byte for byte — markers aside,
which the API does not count as content — and never carry more than the four markers the API
allows, nor one on a deferred tool; the API's cache counts reach our usage. Against the fake
Anthropic server, which enforces those constraints and answers with a simulated prompt cache."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from levelcode.core.messages import Message, ToolResult, Usage, user_text
from levelcode.core.outcome import ToolOutcome
from levelcode.core.tool_offers import DeferredTool
from levelcode.providers.anthropic_cache import MAX_BREAKPOINTS, count_breakpoints, with_cache_breakpoints
from levelcode.providers.anthropic_provider import AnthropicProvider
from tests.fakes.fake_anthropic import fake_anthropic
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import ANTHROPIC, SchemaTool

SYSTEM = "You are a test agent. " * 200  # over the minimum cacheable length with the tools
TOOLS = [SchemaTool("read_file"), SchemaTool("run_command"), DeferredTool("gh__a", "a")]
OBJECT: dict[str, Any] = {"type": "object"}
MARK: dict[str, Any] = {"type": "ephemeral"}


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    return value


def _prefix(body: dict[str, Any], messages: int) -> str:
    """Tools, system and the first `messages` messages, serialized as sent, markers removed."""
    parts = [body.get("tools"), body.get("system"), body["messages"][:messages]]
    return json.dumps(_unmarked(parts))


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def test_markers_go_after_tools_system_previous_and_last_turn_and_never_on_deferred_tools() -> None:
    messages = [_text("user" if i % 2 == 0 else "assistant", f"m{i}") for i in range(7)]
    tools = [{"name": "a"}, {"name": "b"}, {"name": "deferred", "defer_loading": True}]
    marked = with_cache_breakpoints({"tools": tools, "system": "sys", "messages": messages})
    assert [("cache_control" in t) for t in marked["tools"]] == [False, True, False]
    assert marked["system"] == [{"type": "text", "text": "sys", "cache_control": MARK}]
    flags = ["cache_control" in m["content"][-1] for m in marked["messages"]]
    assert flags == [False, False, False, False, True, False, True]  # the previous request's end, and the end
    assert count_breakpoints(marked) == MAX_BREAKPOINTS
    assert "cache_control" not in messages[-1]["content"][-1]  # the input is left as it was


async def _session(server_steps: list[Reply], rounds: int) -> tuple[list[dict[str, Any]], list[Usage]]:
    with fake_anthropic(server_steps, min_cacheable_tokens=256) as server:
        provider = AnthropicProvider(ANTHROPIC.settings(server))
        messages: list[Message] = [user_text("look")]
        usages: list[Usage] = []
        try:
            for _round in range(rounds):
                turn = await provider.complete(system=SYSTEM, messages=messages, tools=TOOLS, on_text=len)
                usages.append(turn.usage or Usage())
                messages.append(turn.message)
                for use in turn.message.tool_uses:
                    messages.append(Message("user", (ToolResult(use.id, ToolOutcome("output " * 100)),)))
        finally:
            await provider.aclose()
        return [dict(request.body) for request in server.requests], usages


async def test_a_session_shares_its_prefix_request_to_request_and_reads_it_from_the_cache() -> None:
    steps = [
        Reply(tool_calls=(ToolCall("read_file", {"path": "a"}, id="t1"),)),
        Reply(tool_calls=(ToolCall("run_command", {"command": "ls"}, id="t2"),)),
        Reply(text="done"),
    ]
    bodies, usages = await _session(steps, 3)
    assert len(bodies) == 3
    for before, after in itertools.pairwise(bodies):
        assert count_breakpoints(after) <= MAX_BREAKPOINTS
        assert _prefix(after, len(before["messages"])) == _prefix(before, len(before["messages"]))
    assert usages[0].cache_read_input_tokens == 0
    assert usages[0].cache_creation_input_tokens > 0
    for later in usages[1:]:
        assert later.cache_read_input_tokens >= usages[0].cache_creation_input_tokens
        assert later.input_tokens < later.cache_read_input_tokens


@pytest.mark.parametrize(
    ("tools", "words"),
    [
        (
            [{"name": f"t{i}", "input_schema": OBJECT, "cache_control": MARK} for i in range(5)],
            "A maximum of 4",
        ),
        (
            [{"name": "d", "input_schema": OBJECT, "defer_loading": True, "cache_control": MARK}],
            "cannot both defer_loading=true cache_control set",
        ),
    ],
)
def test_the_fake_refuses_what_the_api_refuses(tools: list[dict[str, Any]], words: str) -> None:
    with fake_anthropic() as server:
        body = {"model": "fake-claude", "max_tokens": 10, "messages": [_text("user", "hi")], "tools": tools}
        error = server.shape.validate(body)  # type: ignore[attr-defined]
    assert error is not None
    assert words in error.message
