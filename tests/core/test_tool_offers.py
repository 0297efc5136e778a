"""What the conversation has found behind tool_search is read from the transcript: the order of
first reference, and nothing a result did not reference."""

from __future__ import annotations

from levelcode.core.messages import Message, ToolResult, user_text
from levelcode.core.outcome import ToolOutcome
from levelcode.core.tool_offers import DeferredTool, found_tool_names, in_context, offer_found
from tests.providers.support import SchemaTool


def _result(*names: str) -> Message:
    return Message("user", (ToolResult("id", ToolOutcome("found", references=names)),))


def test_found_tools_are_the_references_in_the_order_first_made() -> None:
    messages = [user_text("hi"), _result("gh__b", "gh__a"), _result("gh__a", "fs__c")]
    assert found_tool_names(messages) == ["gh__b", "gh__a", "fs__c"]
    assert found_tool_names([user_text("hi")]) == []


def test_offer_found_marks_only_deferred_tools_the_conversation_found() -> None:
    tools = [SchemaTool("read_file"), DeferredTool("gh__a", "a"), DeferredTool("gh__b", "b")]
    offered = offer_found(tools, [_result("gh__b", "read_file")])
    assert offered[0] == SchemaTool("read_file")
    assert offered[1] == DeferredTool("gh__a", "a")
    assert offered[2] == DeferredTool("gh__b", "b", found_at=0)
    assert [t.name for t in in_context(offered)] == ["read_file", "gh__b"]
