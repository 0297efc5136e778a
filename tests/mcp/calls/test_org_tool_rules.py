"""The organisation's tool rules in the classifier (gates/policy.py). Load-bearing direction: a tool
an organisation rule covers is never `allow` — whatever the user's allow entry, a repository's
"always", or the annotations say — and "deny" is refused without a card; a tool no rule covers is
classified exactly as before."""

from __future__ import annotations

import pytest

from levelcode.mcp.calls.policy import classify_mcp_tool, explain_mcp_refusal, organisation_tool_rule
from levelcode.mcp.config.allow_rules import AllowRule
from levelcode.policy.managed_policy import ManagedPolicy

FILE = "/etc/levelcode/managed-settings.json"
POLICY = ManagedPolicy(
    file=FILE,
    tool_rules={
        "*__drop_*": "deny",
        "github__merge_*": "ask",
        "github__merge_now": "deny",
        "db__?uery": "ask",
    },
    contact="#it",
)
READ_ONLY = {"readOnlyHint": True}

# (server, tool, the model's name, the user's policy): each covered by a rule, each allowed by the user.
MUST_NOT_ALLOW = [
    ("db", "drop_table", "db__drop_table", {"db__drop_table": "allow"}),
    ("renamed", "drop_table", "renamed__drop_table", {"*": "allow"}),  # another server name: same tool
    ("github", "merge_pull_request", "github__merge_pull_request", {"github__*": "allow"}),
    ("github", "merge_now", "github__merge_now", {"github__merge_now": "allow"}),  # deny over ask
    ("db", "query", "db__query", {"db__query": AllowRule("allow")}),
]
MUST_PASS = [
    ("db", "select", "db__select", {"db__select": "allow"}),
    ("github", "list_issues", "github__list_issues", {"github__*": "allow"}),
    ("db", "queries", "db__queries", {"db__queries": "allow"}),  # ? is one character
]


@pytest.mark.parametrize(("server", "tool", "name", "user"), MUST_NOT_ALLOW)
def test_an_organisation_rule_is_never_loosened(
    server: str, tool: str, name: str, user: dict[str, object]
) -> None:
    rule = organisation_tool_rule(server, tool, POLICY)
    assert rule is not None
    for repository in (False, True):
        verdict = classify_mcp_tool(name, READ_ONLY, user, repository=repository, organisation=rule)  # type: ignore[arg-type]
        assert verdict.decision in ("deny", "ask")
        assert not verdict.can_always
        assert verdict.organisation is not None
        assert verdict.organisation.startswith(f"{'denied' if verdict.decision == 'deny' else 'asked'}")
        assert f"by your organisation's policy ({FILE})" in verdict.organisation


@pytest.mark.parametrize(("server", "tool", "name", "user"), MUST_PASS)
def test_a_tool_no_rule_covers_is_the_users_to_allow(
    server: str, tool: str, name: str, user: dict[str, object]
) -> None:
    assert organisation_tool_rule(server, tool, POLICY) is None
    assert classify_mcp_tool(name, READ_ONLY, user).decision == "allow"  # type: ignore[arg-type]


def test_deny_wins_over_ask_and_the_refusal_says_who_and_why() -> None:
    rule = organisation_tool_rule("github", "merge_now", POLICY)
    assert rule is not None
    assert rule.decision == "deny"
    verdict = classify_mcp_tool("github__merge_now", None, {}, organisation=rule)
    text = explain_mcp_refusal(verdict).text
    assert text == (
        "ERROR: MCP tool 'github__merge_now' was not run: it is denied by your organisation's "
        f'policy ({FILE}): mcpToolPolicy["github__merge_now"] — #it. Do not retry this call; '
        "tell the user what you wanted to do instead."
    )
    asked = classify_mcp_tool(
        "github__merge_pr", None, {}, organisation=organisation_tool_rule("github", "merge_pr", POLICY)
    )
    assert 'mcpToolPolicy" in' not in explain_mcp_refusal(asked).text  # never advice to allow-list it
