"""The context meter: the parts always sum to the total, and MCP tools are carved out of the tools
share (never counted beside it), server by server."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given
from hypothesis import strategies as st

from levelcode.agent.context_meter import measure_context
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse
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
