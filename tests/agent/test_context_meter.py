"""The context meter: the parts always sum to the total, and MCP tools are carved out of the tools
share (never counted beside it), server by server."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given
from hypothesis import strategies as st

from levelcode.agent.context_meter import ContextWindow, measure_context
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, Usage
from levelcode.core.outcome import ToolOutcome
from levelcode.core.token_estimate import estimate_tokens, tool_tokens
from levelcode.ui.context_view import render_context


@dataclass(frozen=True)
class Tool:
    name: str
    description: str = "does things"
    input_schema: dict[str, object] = field(default_factory=lambda: {"type": "object", "properties": {}})


def test_parts_and_their_sums() -> None:
    builtin = [Tool("read_file"), Tool("write_file")]
    mcp = {"fs": [Tool("fs__read", "x" * 400)], "gh": [Tool("gh__issue"), Tool("gh__pr")]}
    messages = [Message("user", (TextBlock("hello " * 50),))]
    usage = measure_context("You are a test." * 10, builtin, mcp, messages)
    assert usage.builtin_tools == sum(tool_tokens(t) for t in builtin)
    assert usage.mcp_by_server["fs"] == tool_tokens(mcp["fs"][0])
    assert usage.mcp_tools == usage.mcp_by_server["fs"] + usage.mcp_by_server["gh"]
    assert usage.tools == usage.builtin_tools + usage.mcp_tools
    assert usage.total == usage.system + usage.tools + usage.messages
    text = render_context(usage)
    assert "  tools" in text
    assert "    MCP" in text
    assert "      fs" in text
    assert f"{usage.total:>10,}" in text


words = st.text(max_size=200)
tools = st.lists(st.builds(Tool, st.text(min_size=1, max_size=20), words), max_size=5)


@given(
    words,
    tools,
    st.dictionaries(st.text(min_size=1, max_size=8), tools, max_size=4),
    st.lists(
        st.one_of(
            st.builds(TextBlock, words),
            st.builds(ToolUse, st.just("id"), st.just("t"), st.dictionaries(words, words, max_size=3)),
            st.builds(ToolResult, st.just("id"), st.builds(ToolOutcome, words)),
        ),
        max_size=6,
    ),
)
def test_property_parts_always_sum_to_the_total(
    system: str, builtin: list[Tool], mcp: dict[str, list[Tool]], blocks: list[object]
) -> None:
    messages = [Message("user", (block,)) for block in blocks]  # type: ignore[arg-type]
    usage = measure_context(system, builtin, mcp, messages)
    assert (
        usage.total == usage.system + usage.builtin_tools + sum(usage.mcp_by_server.values()) + usage.messages
    )
    assert usage.system == estimate_tokens(system)
    assert set(usage.mcp_by_server) == set(mcp)


def test_deferred_tools_are_counted_apart_and_the_search_tool_inside() -> None:
    builtin = [Tool("read_file")]
    search = Tool("tool_search", "index " * 40)
    loaded = {"gh": [Tool("gh__found", "x" * 200)]}
    deferred = {"gh": [Tool("gh__other", "y" * 4000)], "fs": [Tool("fs__a", "z" * 800), Tool("fs__b")]}
    usage = measure_context("s", builtin, loaded, [], tool_search=search, deferred_by_server=deferred)
    assert usage.mcp_tools == tool_tokens(search) + tool_tokens(loaded["gh"][0])
    assert usage.total == usage.system + usage.builtin_tools + usage.mcp_tools + usage.messages
    assert usage.deferred_tools == 3
    assert usage.mcp_deferred == sum(tool_tokens(t) for tools in deferred.values() for t in tools)
    last = Usage(
        input_tokens=120, output_tokens=9, cache_read_input_tokens=3000, cache_creation_input_tokens=40
    )
    text = render_context(usage, last=last)
    assert "tool_search + index" in text
    assert "MCP deferred: 3 tools behind tool_search, not in the context" in text
    assert "3,160 input tokens — 3,000 read from the cache, 40 written to it, 120 uncached" in text


def test_the_share_of_the_window_in_use() -> None:
    usage = measure_context(
        "s" * 40_000, [], {}, [], window=ContextWindow("claude-sonnet-5-5", 200_000, True)
    )
    assert usage.total == 10_000
    text = render_context(usage)
    assert "  window: 5.0% used — 10,000 of claude-sonnet-5-5's 200,000 tokens" in text


def test_an_unknown_window_is_said_to_be_unknown() -> None:
    usage = measure_context("s" * 40_000, [], {}, [], window=ContextWindow("my-local", 128_000, False))
    text = render_context(usage)
    assert (
        "  window: unknown for my-local — 10,000 tokens would be 7.8% of the 128,000 LevelCode "
        'assumes; set "contextWindow" in your settings.json'
    ) in text
    assert "window" not in render_context(measure_context("s", [], {}, []))  # nothing to go by
