"""MCP call policy. Load-bearing direction: nothing is `allow` unless the user's own mcpToolPolicy
allows it, and a tool the server marks destructive is never `allow` at all; hints from the server
never loosen. The second corpus: what the user allow-listed (exactly, by server, or everything)
does run without asking, and a refusal never suggests allow-listing what cannot be allow-listed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.policy import classify_mcp_tool, explain_mcp_refusal

MUST_ASK = [
    # (name, annotations, policy)
    ("fs__read_file", None, {}),
    ("fs__read_file", {"readOnlyHint": True}, {}),
    ("fs__read_file", {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}, {}),
    ("fs__write_file", {"destructiveHint": True}, {"fs__write_file": "allow"}),
    ("fs__write_file", {"destructiveHint": True}, {"fs__*": "allow"}),
    ("fs__write_file", {"destructiveHint": True}, {"*": "allow"}),
    ("fs__read_file", None, {"fs__read_file": "ask"}),
    ("fs__read_file", None, {"*": "allow", "fs__*": "ask"}),
    ("fs__read_file", None, {"*": "allow", "fs__read_file": "ask"}),
    ("fs__read_file", None, {"fs__*": "allow", "fs__read_file": "ask"}),
    ("fsx__read_file", None, {"fs__*": "allow"}),
    ("fs_x__read_file", None, {"fs__*": "allow"}),
    ("github__evil__t", None, {"github__evil__*": "allow"}),
    ("fs__read_file", None, {"fs__read": "allow", "fs__read_file_2": "allow"}),
    ("fs__read_file", None, {"FS__read_file": "allow"}),
    ("fs__read_file", {"destructiveHint": "true"}, {}),
]

MAY_ALLOW = [
    ("fs__read_file", None, {"fs__read_file": "allow"}, "fs__read_file"),
    ("fs__read_file", None, {"fs__*": "allow"}, "fs__*"),
    ("fs__read_file", None, {"*": "allow"}, "*"),
    ("fs__read_file", {"destructiveHint": False}, {"*": "allow"}, "*"),
    ("fs__read_file", {"readOnlyHint": False}, {"fs__read_file": "allow", "*": "ask"}, "fs__read_file"),
    ("fs__read_file", {"destructiveHint": "true"}, {"fs__*": "allow"}, "fs__*"),
]


@pytest.mark.parametrize(("name", "annotations", "policy"), MUST_ASK)
def test_must_ask(name: str, annotations: dict[str, object] | None, policy: dict[str, str]) -> None:
    assert classify_mcp_tool(name, annotations, policy).decision == "ask"


@pytest.mark.parametrize(("name", "annotations", "policy", "rule"), MAY_ALLOW)
def test_user_allow_list_allows(
    name: str, annotations: dict[str, object] | None, policy: dict[str, str], rule: str
) -> None:
    verdict = classify_mcp_tool(name, annotations, policy)
    assert (verdict.decision, verdict.rule) == ("allow", rule)


def test_destructive_tool_is_not_allowlistable_and_says_why() -> None:
    verdict = classify_mcp_tool("fs__rm", {"destructiveHint": True}, {"*": "allow"})
    assert (verdict.decision, verdict.allowlistable, verdict.destructive) == ("ask", False, True)
    assert "destructive" in verdict.reason


def test_default_ask_is_allowlistable() -> None:
    verdict = classify_mcp_tool("fs__read_file", None, {})
    assert (verdict.decision, verdict.allowlistable, verdict.rule) == ("ask", True, None)


def test_refusal_names_the_setting_and_says_do_not_retry() -> None:
    verdict = classify_mcp_tool("fs__read_file", None, {})
    text = explain_mcp_refusal(verdict, settings_file="/cfg/settings.json")
    assert text.startswith("ERROR:")
    assert '"fs__read_file": "allow"' in text
    assert "mcpToolPolicy" in text
    assert "/cfg/settings.json" in text
    assert "Do not retry" in text


def test_refusal_of_destructive_tool_never_suggests_allow_listing() -> None:
    verdict = classify_mcp_tool("fs__rm", {"destructiveHint": True}, {"fs__rm": "allow"})
    for denied in (False, True):
        text = explain_mcp_refusal(verdict, denied_by_user=denied)
        assert "mcpToolPolicy" not in text
        assert "allow" not in text.replace("allowed", "")
        assert "destructive" in text
        assert "Do not retry" in text


def test_user_denial_says_so() -> None:
    text = explain_mcp_refusal(classify_mcp_tool("fs__x", None, {}), denied_by_user=True)
    assert "the user denied" in text
    assert "Do not retry" in text


annotation_values = st.none() | st.booleans() | st.text(max_size=5) | st.integers()
annotations = st.none() | st.dictionaries(
    st.sampled_from(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title"]),
    annotation_values,
)
patterns = st.sampled_from(["*", "fs__*", "gh__*", "fs__read_file", "fs__x", "gh__y"])
policies = st.dictionaries(patterns, st.sampled_from(["allow", "ask"]), max_size=4)
names = st.sampled_from(["fs__read_file", "fs__x", "gh__y", "gh__read_file", "other__t"]) | st.text(
    max_size=20
)


@given(names, annotations, policies)
def test_property_never_allow_without_a_user_allow_entry(
    name: str, notes: dict[str, object] | None, policy: dict[str, str]
) -> None:
    verdict = classify_mcp_tool(name, notes, policy)
    if verdict.decision == "allow":
        assert verdict.rule is not None
        assert policy[verdict.rule] == "allow"


@given(names, annotations)
def test_property_empty_policy_never_allows(name: str, notes: dict[str, object] | None) -> None:
    assert classify_mcp_tool(name, notes, {}).decision == "ask"


@given(names, annotations, policies)
def test_property_destructive_never_allows(
    name: str, notes: dict[str, object] | None, policy: dict[str, str]
) -> None:
    marked = {**(notes or {}), "destructiveHint": True}
    verdict = classify_mcp_tool(name, marked, policy)
    assert verdict.decision == "ask"
    assert not verdict.allowlistable
    assert "mcpToolPolicy" not in explain_mcp_refusal(verdict)
