"""The call card and masking. Load-bearing direction: "always" is never offered for a destructive
tool, a card that cuts an argument carries every argument in full, and a masked argument list
lets no value through. The second corpus: a tool the user could allow-list is offered "always"
with a label naming the settings file it would change."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.call_card import (
    MASK,
    MAX_ARGUMENT_CHARS,
    MAX_ARGUMENT_LINES,
    call_card,
    format_arguments,
    mask_arguments,
)
from levelcode.mcp.calls.policy import classify_mcp_tool

SETTINGS = "/home/me/.config/levelcode/settings.json"


MUST_NOT_OFFER_ALWAYS = [
    ("fs__rm", {"destructiveHint": True}, {}),
    ("fs__rm", {"destructiveHint": True}, {"fs__rm": "allow"}),
    ("fs__rm", {"destructiveHint": True}, {"fs__*": "allow"}),
    ("fs__rm", {"destructiveHint": True}, {"*": "allow"}),
    ("fs__rm", {"destructiveHint": True, "readOnlyHint": True}, {"fs__rm": "ask"}),
    ("fs__rm", {"destructiveHint": "true"}, {"*": "ask"}),  # not an explicit false: destructive
    ("fs__rm", {"readOnlyHint": False}, {"fs__*": "allow"}),  # the spec's default: destructive
]
MAY_OFFER_ALWAYS = [
    ("fs__read", None, {}),
    ("fs__read", {"readOnlyHint": True}, {}),
    ("fs__read", {"destructiveHint": False}, {"fs__read": "ask"}),
    ("fs__read", None, {"fs__*": "ask", "gh__read": "allow"}),
    ("fs__read", {"title": "Read", "category": "files"}, {}),
]


@pytest.mark.parametrize(("name", "annotations", "policy"), MUST_NOT_OFFER_ALWAYS)
def test_always_is_never_offered_for_a_destructive_tool(
    name: str, annotations: Mapping[str, object], policy: Mapping[str, str]
) -> None:
    verdict = classify_mcp_tool(name, annotations, policy)
    card = call_card("fs", "rm", verdict, {"path": "/repo"}, SETTINGS)
    assert card.allow_always is False
    assert card.warning is not None
    assert "destructive" in card.warning


@pytest.mark.parametrize(("name", "annotations", "policy"), MAY_OFFER_ALWAYS)
def test_always_is_offered_with_a_label_naming_the_settings_file(
    name: str, annotations: Mapping[str, object] | None, policy: Mapping[str, str]
) -> None:
    verdict = classify_mcp_tool(name, annotations, policy)
    card = call_card("fs", "read", verdict, {"path": "/repo"}, SETTINGS)
    assert card.allow_always is True
    assert card.always_label == (
        f"always allow fs__read (records it in mcpToolPolicy in {SETTINGS}; "
        "asks again if the server changes the tool)"
    )
    assert card.warning is None


def test_the_call_card_names_server_and_tool_and_pretty_prints_arguments() -> None:
    verdict = classify_mcp_tool("fs__read_file", None, {})
    card = call_card("fs", "read_file", verdict, {"path": "/repo/ä.txt", "lines": [1, 2]}, SETTINGS)
    assert card.kind == "mcp_call"
    assert card.title == "MCP call · fs · read_file"
    assert card.body == (
        "server: fs",
        "tool:   read_file",
        "arguments:",
        "  {",
        '    "path": "/repo/ä.txt",',
        '    "lines": [',
        "      1,",
        "      2",
        "    ]",
        "  }",
    )


def test_no_arguments_say_none() -> None:
    assert format_arguments({}) == ["  (none)"]


def test_a_long_value_is_cut_and_says_by_how_much() -> None:
    long = "a" * (MAX_ARGUMENT_CHARS + 700)
    [_open, line, _close] = format_arguments({"content": long})
    assert "a" * MAX_ARGUMENT_CHARS + "… [700 more chars]" in line
    assert "a" * (MAX_ARGUMENT_CHARS + 1) not in line


def test_a_long_nested_value_is_cut_too() -> None:
    nested = {"items": ["b" * 200, "c" * 200], "short": {"k": 1}}
    lines = format_arguments(nested)
    text = "\n".join(lines)
    assert "more chars]" in text
    assert all(len(line) < MAX_ARGUMENT_CHARS + 60 for line in lines)
    assert '"short": {' in text  # a short nested value stays structured


def test_a_value_at_the_limit_is_not_cut() -> None:
    exact = "d" * MAX_ARGUMENT_CHARS
    assert format_arguments({"v": exact})[1] == f'    "v": "{exact}"'


def test_many_arguments_are_bounded_in_lines() -> None:
    lines = format_arguments({f"key{i}": i for i in range(100)})
    assert len(lines) == MAX_ARGUMENT_LINES + 1
    assert lines[-1] == f"  … {102 - MAX_ARGUMENT_LINES} more lines"


# A call card that cuts anything carries every argument in full, for [v]; one that cuts nothing
# carries nothing more (load-bearing: the cut tail is always there to be shown).
SQL = "SELECT * FROM users WHERE note = '" + "x" * MAX_ARGUMENT_CHARS + "'; DROP TABLE users"


@pytest.mark.parametrize(
    "arguments",
    [{"query": SQL}, {"filter": {"where": SQL}}, {f"key{i}": i for i in range(100)}],
)
def test_a_call_card_that_cuts_carries_every_argument_in_full(arguments: dict[str, object]) -> None:
    verdict = classify_mcp_tool("db__query", None, {})
    card = call_card("db", "query", verdict, arguments, SETTINGS)
    assert card.full_body[:3] == card.body[:3]
    assert json.loads("\n".join(card.full_body[3:])) == arguments
    assert "DROP TABLE" not in "\n".join(card.body) or len(arguments) == 100


def test_a_call_card_that_cuts_nothing_carries_nothing_more() -> None:
    verdict = classify_mcp_tool("db__query", None, {})
    exact = {"query": "q" * MAX_ARGUMENT_CHARS}
    assert call_card("db", "query", verdict, exact, SETTINGS).full_body == ()


def test_masking_keeps_every_key_and_no_value() -> None:
    arguments = {
        "path": "/etc/shadow",
        "token": "sk-secret",
        "n": 12345,
        "deep": {"password": "hunter22"},
        "content": "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "k" * 2000,
    }
    masked = mask_arguments(arguments)
    assert masked == {"path": MASK, "token": MASK, "n": MASK, "deep": MASK, "content": MASK}
    assert mask_arguments({}) == {}


JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.text(min_size=16, max_size=600)  # secrets and file contents are long
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=16,
)


def _tokens(value: object) -> list[str]:
    """Every string and number inside a value, nested keys included, as it would be written."""
    if isinstance(value, dict):
        return [token for key, inner in value.items() for token in [key, *_tokens(inner)]]
    if isinstance(value, list):
        return [token for inner in value for token in _tokens(inner)]
    return [value if isinstance(value, str) else json.dumps(value)]


@given(arguments=st.dictionaries(st.text(), JSON_VALUE, max_size=6))
def test_no_argument_value_ever_survives_masking(arguments: dict[str, object]) -> None:
    masked = mask_arguments(arguments)
    assert list(masked) == list(arguments)
    for ensure_ascii in (True, False):
        dumped = json.dumps(masked, ensure_ascii=ensure_ascii)
        # What may legitimately appear: the keys, the mask and JSON punctuation, nothing else.
        skeleton = json.dumps(dict.fromkeys(arguments, MASK), ensure_ascii=ensure_ascii)
        for token in _tokens(list(arguments.values())):
            # A value may leak raw or JSON-escaped (quotes, control characters, non-ASCII).
            escaped = json.dumps(token, ensure_ascii=ensure_ascii)[1:-1]
            for form in {token, escaped}:
                if len(form) >= 4 and form not in skeleton:
                    assert form not in dumped
