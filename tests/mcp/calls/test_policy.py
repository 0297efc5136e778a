"""MCP call policy. Load-bearing direction: nothing is `allow` unless the user's own mcpToolPolicy
allows it, and a destructive tool is never `allow` at all — destructive as the MCP spec reads the
annotations: a tool that has any of the four hints is destructive unless `readOnlyHint` is true
or `destructiveHint` is explicitly false (`readOnlyHint` defaults to false, `destructiveHint` to
true); hints from the server never loosen. The second corpus: what the user allow-listed (exactly,
by server, or everything) does run without asking — an unannotated tool (no hint keys at all), a
read-only one, one marked non-destructive — and a refusal never suggests allow-listing what cannot
be allow-listed. An allow rule that recorded a tool's definition allows that definition only; the
settings' entries never apply to a repository's server, only what the user allowed for it there."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.policy import (
    PolicyEntry,
    classify_mcp_tool,
    explain_mcp_refusal,
    policy_for_tool,
    tool_kind,
)
from levelcode.mcp.config.allow_rules import AllowRule, ToolDefinition, definition_of

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
    # the spec's defaults: annotated, not read-only, destructiveHint left out → destructive
    ("cd__evaluate_script", {"readOnlyHint": False}, {"cd__*": "allow"}),
    ("cd__fill", {"category": "input", "readOnlyHint": False}, {"*": "allow"}),
    ("cd__close_page", {"readOnlyHint": False}, {"cd__close_page": "allow"}),
    ("fs__x", {"idempotentHint": True}, {"*": "allow"}),
    ("fs__x", {"openWorldHint": False}, {"fs__x": "allow"}),
    ("fs__x", {"readOnlyHint": False, "destructiveHint": True}, {"*": "allow"}),
    # only an explicit true / false counts; anything else is read the strict way
    ("fs__x", {"destructiveHint": "true"}, {"fs__*": "allow"}),
    ("fs__x", {"destructiveHint": "false"}, {"*": "allow"}),
    ("fs__x", {"destructiveHint": 0}, {"*": "allow"}),
    ("fs__x", {"readOnlyHint": "true"}, {"*": "allow"}),
    ("fs__x", {"readOnlyHint": None}, {"*": "allow"}),
    ("fs__x", {"readOnlyHint": 1}, {"*": "allow"}),
    # conflicting hints: an explicit destructiveHint: true wins (hints may only tighten)
    ("fs__x", {"readOnlyHint": True, "destructiveHint": True}, {"*": "allow"}),
    # read-only grants nothing by itself
    ("cd__list_pages", {"readOnlyHint": True}, {"other__*": "allow"}),
]

MAY_ALLOW = [
    ("fs__read_file", None, {"fs__read_file": "allow"}, "fs__read_file"),
    ("fs__read_file", None, {"fs__*": "allow"}, "fs__*"),
    ("fs__read_file", None, {"*": "allow"}, "*"),
    ("fs__read_file", {"destructiveHint": False}, {"*": "allow"}, "*"),
    ("fs__read_file", {}, {"*": "allow"}, "*"),  # no hint keys: unannotated, the allow-list decides
    ("fs__read_file", {"title": "Read a file"}, {"fs__*": "allow"}, "fs__*"),
    ("cd__wait_for", {"category": "navigation"}, {"cd__*": "allow"}, "cd__*"),
    ("cd__list_pages", {"category": "navigation", "readOnlyHint": True}, {"cd__*": "allow"}, "cd__*"),
    ("fs__x", {"readOnlyHint": True, "destructiveHint": False}, {"*": "allow"}, "*"),
    ("fs__x", {"readOnlyHint": True, "openWorldHint": True}, {"fs__x": "allow"}, "fs__x"),
    ("fs__x", {"readOnlyHint": False, "destructiveHint": False}, {"fs__x": "allow"}, "fs__x"),
    ("fs__x", {"destructiveHint": False, "idempotentHint": True}, {"*": "allow"}, "*"),
]

KINDS = [
    (None, "unannotated"),
    ({}, "unannotated"),
    ({"title": "x", "category": "input"}, "unannotated"),
    ({"readOnlyHint": True}, "read-only"),
    ({"readOnlyHint": True, "destructiveHint": False}, "read-only"),
    ({"destructiveHint": False}, "non-destructive"),
    ({"readOnlyHint": False, "destructiveHint": False}, "non-destructive"),
    ({"readOnlyHint": False}, "destructive"),
    ({"idempotentHint": False}, "destructive"),
    ({"destructiveHint": True}, "destructive"),
    ({"readOnlyHint": True, "destructiveHint": True}, "destructive"),
]


@pytest.mark.parametrize(("annotations", "kind"), KINDS)
def test_tool_kind_reads_the_annotations_as_the_spec_defines_them(
    annotations: dict[str, object] | None, kind: str
) -> None:
    assert tool_kind(annotations) == kind
    assert classify_mcp_tool("s__t", annotations, {"*": "allow"}).kind == kind


def test_a_tool_destructive_by_the_specs_default_says_so() -> None:
    verdict = classify_mcp_tool("cd__fill", {"readOnlyHint": False}, {"cd__*": "allow"})
    assert (verdict.decision, verdict.destructive, verdict.allowlistable) == ("ask", True, False)
    assert "destructiveHint" in verdict.reason
    text = explain_mcp_refusal(verdict).text
    assert "destructive" in text
    assert "mcpToolPolicy" not in text


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
    text = explain_mcp_refusal(verdict, settings_file="/cfg/settings.json").text
    assert text.startswith("ERROR:")
    assert '"fs__read_file": "allow"' in text
    assert "mcpToolPolicy" in text
    assert "/cfg/settings.json" in text
    assert "Do not retry" in text


def test_refusal_of_destructive_tool_never_suggests_allow_listing() -> None:
    verdict = classify_mcp_tool("fs__rm", {"destructiveHint": True}, {"fs__rm": "allow"})
    for denied in (False, True):
        text = explain_mcp_refusal(verdict, denied_by_user=denied).text
        assert "mcpToolPolicy" not in text
        assert "allow" not in text.replace("allowed", "")
        assert "destructive" in text
        assert "Do not retry" in text


def test_user_denial_says_so() -> None:
    text = explain_mcp_refusal(classify_mcp_tool("fs__x", None, {}), denied_by_user=True).text
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
    assert "mcpToolPolicy" not in explain_mcp_refusal(verdict).text


# --- an allow rule covers the tool the user saw -------------------------------------------------

SEEN = definition_of("reads a file", {"type": "object"}, None)
RECORDED = AllowRule("allow", SEEN)
CHANGED_DEFINITIONS = [
    (definition_of("reads a file, then mails it", {"type": "object"}, None), ("description",)),
    (definition_of("reads a file", {"type": "object", "required": ["x"]}, None), ("input schema",)),
    (definition_of("reads a file", {"type": "object"}, {"destructiveHint": False}), ("annotations",)),
    (definition_of("x", {}, {}), ("description", "input schema", "annotations")),
    (None, ("description", "input schema", "annotations")),  # the current definition is unknown
]


@pytest.mark.parametrize(("current", "parts"), CHANGED_DEFINITIONS)
def test_a_recorded_rule_does_not_cover_a_changed_tool(
    current: ToolDefinition | None, parts: tuple[str, ...]
) -> None:
    verdict = classify_mcp_tool("fs__read_file", None, {"fs__read_file": RECORDED}, current)
    assert (verdict.decision, verdict.changed, verdict.can_always) == ("ask", parts, True)
    assert verdict.warning is not None
    assert "changed since you allowed it" in verdict.warning
    text = explain_mcp_refusal(verdict).text
    assert "changed since the user allowed it" in text
    assert "Do not retry" in text


def test_a_recorded_rule_covers_the_same_tool_and_plain_entries_work_as_before() -> None:
    assert classify_mcp_tool("fs__read_file", None, {"fs__read_file": RECORDED}, SEEN).decision == "allow"
    assert (
        classify_mcp_tool("fs__read_file", None, {"fs__read_file": AllowRule("allow")}, None).decision
        == "allow"
    )
    other = definition_of("anything", {}, None)
    for policy in ({"fs__read_file": "allow"}, {"fs__*": "allow"}, {"*": "allow"}):
        assert classify_mcp_tool("fs__read_file", None, policy, other).decision == "allow"
    assert (
        classify_mcp_tool("fs__read_file", None, {"fs__read_file": AllowRule("ask", SEEN)}, SEEN).decision
        == "ask"
    )


def test_a_stale_exact_rule_is_not_rescued_by_a_wildcard() -> None:
    policy: dict[str, PolicyEntry] = {"fs__read_file": RECORDED, "fs__*": "allow"}
    changed = definition_of("new", {}, None)
    assert classify_mcp_tool("fs__read_file", None, policy, changed).decision == "ask"


def test_the_settings_never_apply_to_a_repository_server() -> None:
    user: dict[str, PolicyEntry] = {"*": "allow", "repo__*": "allow", "repo__t": "allow"}
    for rules in ({}, {"other": RECORDED}):
        policy = policy_for_tool("repo__t", "t", repository=True, user_policy=user, repository_rules=rules)
        verdict = classify_mcp_tool("repo__t", None, policy, SEEN, repository=True)
        assert (verdict.decision, verdict.allowlistable, verdict.can_always) == ("ask", False, True)
        text = explain_mcp_refusal(verdict).text
        assert "mcpToolPolicy" in text
        assert '"repo__t": "allow"' not in text
    policy = policy_for_tool(
        "repo__t", "t", repository=True, user_policy=user, repository_rules={"t": RECORDED}
    )
    assert classify_mcp_tool("repo__t", None, policy, SEEN, repository=True).decision == "allow"
    assert (
        classify_mcp_tool("repo__t", None, policy, definition_of("new", {}, None), repository=True).decision
        == "ask"
    )
    destructive = classify_mcp_tool("repo__t", {"destructiveHint": True}, policy, SEEN, repository=True)
    assert (destructive.decision, destructive.can_always) == ("ask", False)


definitions = st.builds(
    definition_of, st.text(max_size=5), st.sampled_from([{}, {"type": "object"}]), st.none()
)


@given(names, annotations, definitions, definitions)
def test_property_a_recorded_rule_never_allows_another_definition(
    name: str, notes: dict[str, object] | None, seen: ToolDefinition, current: ToolDefinition
) -> None:
    verdict = classify_mcp_tool(name, notes, {name: AllowRule("allow", seen)}, current)
    if verdict.decision == "allow":
        assert seen == current
