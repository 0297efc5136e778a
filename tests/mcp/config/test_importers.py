"""Importing other tools' MCP servers. Load-bearing direction: an imported server lands in the TRUSTED
user tier and starts without asking, so nothing may be offered that is not exactly what the other tool
ran — no expanded `${…}`, no dropped argument, no `${input:…}` left as a broken literal — and a
repository's file may never provide a server unless the caller asked for repository servers, nor take
a name from the user's own files or settings. The first corpus (real shapes) must convert exactly;
the second (hostile or invalid entries) must be skipped with a reason that names the problem.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.import_tools import Tool
from levelcode.mcp.config.importers import (
    Candidate,
    Origin,
    SearchRoots,
    Skipped,
    SourceFile,
    SourceReading,
    convert_server,
    read_source,
    source_files,
)
from levelcode.mcp.config.specs import HttpServerSpec, StdioServerSpec
from levelcode.mcp.launch.plan import launch_text

HOME = Path("/home/me")
WS = Path("/work/proj")


def _origin(tool: Tool, *, repo: bool = False, file: str = "/f.json") -> Origin:
    return Origin(tool, file, repo)


def _convert(tool: Tool, raw: object, name: str = "srv") -> Candidate | Skipped:
    return convert_server(name, raw, _origin(tool), key=f"mcpServers.{name}")


def _offered(tool: Tool, raw: object) -> Candidate:
    outcome = _convert(tool, raw)
    assert isinstance(outcome, Candidate), outcome
    return outcome


# --- corpus 1: real shapes that must convert exactly -------------------------------------------------

EXACT: list[tuple[Tool, dict[str, Any], dict[str, Any]]] = [
    (
        "claude-desktop",
        {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/a b"],
            "env": {"LOG": "debug"},
        },
        {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/a b"],
            "env": {"LOG": "debug"},
        },
    ),
    # Claude Desktop expands nothing: what it passed literally is passed literally.
    ("claude-desktop", {"command": "srv", "args": ["${HOME}/x"]}, {"command": "srv", "args": ["${HOME}/x"]}),
    ("claude-desktop", {"command": "srv", "cwd": "/srv/app"}, {"command": "srv", "cwd": "/srv/app"}),
    (
        "claude-code",
        {"type": "stdio", "command": "npx", "args": ["-y", "pg"], "env": {"URL": "${DB_URL:-postgres://x}"}},
        {"command": "npx", "args": ["-y", "pg"], "env": {"URL": "${DB_URL:-postgres://x}"}},
    ),
    (
        "claude-code",
        {"type": "http", "url": "https://mcp.notion.com/mcp", "headers": {"X-Team": "core"}},
        {"url": "https://mcp.notion.com/mcp", "headers": {"X-Team": "core"}},
    ),
    ("claude-code", {"type": "stdio", "command": "x", "env": {}}, {"command": "x", "env": {}}),
    ("cursor", {"url": "https://api.example.com/mcp"}, {"url": "https://api.example.com/mcp"}),
    (
        "cursor",
        {"command": "npx", "args": ["envmcp", "srv", "$DATABASE_URL"], "env": {"K": "${env:API_KEY}"}},
        {"command": "npx", "args": ["envmcp", "srv", "$DATABASE_URL"], "env": {"K": "${API_KEY}"}},
    ),
    (
        "cursor",
        {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"},
        {"url": "http://127.0.0.1:9/mcp"},
    ),
    (
        "vscode",
        {
            "type": "stdio",
            "command": "docker",
            "args": [
                "run",
                "-i",
                "--rm",
                "-e",
                "GITHUB_PERSONAL_ACCESS_TOKEN",
                "ghcr.io/github/github-mcp-server",
            ],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GH_TOKEN}", "MODE": "a ${env:X} b ${env:Y}"},
        },
        {
            "command": "docker",
            "args": [
                "run",
                "-i",
                "--rm",
                "-e",
                "GITHUB_PERSONAL_ACCESS_TOKEN",
                "ghcr.io/github/github-mcp-server",
            ],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH_TOKEN}", "MODE": "a ${X} b ${Y}"},
        },
    ),
    (
        "vscode",
        {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"X-Mode": "read"}},
        {"url": "https://api.githubcopilot.com/mcp/", "headers": {"X-Mode": "read"}},
    ),
    (
        "cursor",
        {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
        {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    ),
    (
        "claude-code",
        {"type": "sse", "url": "https://mcp.linear.app/sse"},
        {"type": "sse", "url": "https://mcp.linear.app/sse"},
    ),
]


@pytest.mark.parametrize(("tool", "raw", "expected"), EXACT)
def test_real_shapes_convert_exactly(tool: Tool, raw: dict[str, Any], expected: dict[str, Any]) -> None:
    candidate = _offered(tool, raw)
    assert candidate.entry == expected
    assert candidate.notes == ()


def test_the_offered_spec_is_what_levelcodes_own_parser_makes_of_the_entry() -> None:
    stdio = _offered("claude-desktop", {"command": "npx", "args": ["-y", "a b"], "env": {"K": "v"}})
    assert isinstance(stdio.spec, StdioServerSpec)
    assert launch_text(stdio.spec) == "npx -y 'a b'"
    assert stdio.spec.env == (("K", "v"),)
    http = _offered("cursor", {"url": "https://x.example/mcp", "headers": {"A": "b"}})
    assert isinstance(http.spec, HttpServerSpec)
    assert (http.spec.url, http.spec.headers) == ("https://x.example/mcp", (("A", "b"),))


def test_fields_levelcode_has_no_use_for_are_named_in_a_note_not_silently_dropped() -> None:
    raw = {
        "type": "stdio",
        "command": "uvx",
        "args": ["fetch"],
        "dev": {"watch": "src/**"},
        "autoApprove": [],
    }
    candidate = _offered("vscode", raw)
    assert candidate.entry == {"command": "uvx", "args": ["fetch"]}
    assert candidate.notes == (
        "`dev` not imported: LevelCode has no such setting",
        "`autoApprove` not imported: LevelCode has no such setting",
    )


# --- corpus 2: hostile or invalid entries that must be skipped, with the reason ----------------------

REFUSED: list[tuple[Tool, object, str]] = [
    ("claude-desktop", "npx -y server", "expected an object"),
    ("claude-desktop", ["npx"], "expected an object"),
    ("claude-desktop", None, "expected an object"),
    ("claude-desktop", {}, "needs `command` (a stdio server) or `url` (an HTTP server)"),
    ("claude-desktop", {"command": 42}, "command: must be a non-empty string"),
    ("claude-desktop", {"command": "   "}, "command: must be a non-empty string"),
    ("claude-desktop", {"command": "x", "args": "a b"}, "args: must be a list of strings"),
    ("cursor", {"command": "x", "args": ["--port", 3000]}, "args: must be a list of strings"),
    ("cursor", {"command": "x", "args": [["nested"]]}, "args: must be a list of strings"),
    ("cursor", {"command": "x", "env": {"PORT": 3000}}, "env: must be an object whose values are strings"),
    ("cursor", {"command": "x", "env": ["A=1"]}, "env: must be an object whose values are strings"),
    ("cursor", {"command": "x", "cwd": ""}, "cwd: must be a non-empty string"),
    ("cursor", {"command": "x", "url": "https://x/mcp"}, "has both `command` and `url`"),
    ("cursor", {"url": "file:///etc/passwd"}, "url: must be an http:// or https:// URL"),
    ("cursor", {"url": "javascript:alert(1)"}, "url: must be an http:// or https:// URL"),
    ("cursor", {"url": "https://x/mcp", "headers": {"A": None}}, "headers: must be an object whose values"),
    (
        "vscode",
        {"type": "websocket", "url": "wss://x"},
        "type 'websocket' is not a transport LevelCode knows",
    ),
    ("vscode", {"type": "stdio", "command": "x", "envFile": "${workspaceFolder}/.env"}, "env file (envFile)"),
    ("claude-code", {"type": "http", "url": "https://x/mcp", "headersHelper": "get-token"}, "headersHelper"),
    (
        "vscode",
        {"type": "stdio", "command": "x", "env": {"TOKEN": "${input:gh-token}"}},
        "env TOKEN uses ${input:gh-token}, a value VS Code asks you for",
    ),
    (
        "vscode",
        {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${input:tok}"}},
        "header Authorization uses ${input:tok}",
    ),
    ("vscode", {"type": "stdio", "command": "x", "args": ["${input:path}"]}, "arg 1 uses ${input:path}"),
    (
        "vscode",
        {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/dist/index.js"]},
        "arg 1 uses ${workspaceFolder}, which VS Code fills in itself",
    ),
    ("vscode", {"type": "stdio", "command": "x", "env": {"A": "${config:editor.x}"}}, "${config:editor.x}"),
    ("cursor", {"command": "${userHome}/bin/srv"}, "command uses ${userHome}, which Cursor fills in"),
    ("cursor", {"command": "x", "cwd": "${workspaceFolder}"}, "cwd uses ${workspaceFolder}"),
    ("cursor", {"command": "x", "cwd": "${env:HOME}/srv"}, "cwd uses ${env:HOME}, which Cursor fills in"),
]


# Claude Code fills in ${VAR} and ${VAR:-default} in command, args, env, url and headers, Cursor and
# VS Code ${env:VAR}; LevelCode does the same when it loads them (config/launch_expansion.py).
REFERENCES_KEPT = [
    (
        "claude-code",
        {"type": "stdio", "command": "npx", "args": ["-y", "pg", "${DATABASE_URL}"]},
        {"command": "npx", "args": ["-y", "pg", "${DATABASE_URL}"]},
    ),
    (
        "claude-code",
        {"type": "http", "url": "${API_BASE:-https://x}/mcp"},
        {"url": "${API_BASE:-https://x}/mcp"},
    ),
    ("claude-code", {"command": "${HOME}/bin/srv"}, {"command": "${HOME}/bin/srv"}),
    (
        "vscode",
        {"type": "stdio", "command": "x", "args": ["--key=${env:KEY}"]},
        {"command": "x", "args": ["--key=${KEY}"]},
    ),
]


@pytest.mark.parametrize(("tool", "raw", "entry"), REFERENCES_KEPT)
def test_environment_references_in_every_field_are_imported_as_references(
    tool: Tool, raw: object, entry: dict[str, object]
) -> None:
    assert _offered(tool, raw).entry == entry


@pytest.mark.parametrize(("tool", "raw", "reason"), REFUSED)
def test_hostile_or_invalid_entries_are_skipped_with_the_reason(tool: Tool, raw: object, reason: str) -> None:
    outcome = _convert(tool, raw)
    assert isinstance(outcome, Skipped), outcome
    assert reason in outcome.reason
    assert outcome.name == "srv"


@pytest.mark.parametrize("name", ["", "   "])
def test_an_entry_without_a_name_is_skipped(name: str) -> None:
    outcome = _convert("cursor", {"command": "x"}, name=name)
    assert isinstance(outcome, Skipped)
    assert "server name must not be empty" in outcome.reason


# --- the property: never expand a reference, never drop or reorder an argument -----------------------

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_fragments = st.sampled_from(
    ["${", "}", "$", "${HOME}", "${env:TOKEN}", "${VAR:-dflt}", "${input:x}", "${workspaceFolder}", "a", " "]
)
_texts = st.lists(st.one_of(_fragments, st.text(max_size=6)), max_size=5).map("".join)


def _same_but_for_env_prefix(before: str, after: str) -> bool:
    """`after` is `before` with at most `${env:X}` written `${X}`: same text around, same references."""
    if _REFERENCE.sub("${}", before) != _REFERENCE.sub("${}", after):
        return False
    pairs = zip(_REFERENCE.findall(before), _REFERENCE.findall(after), strict=True)
    return all(old in (new, f"env:{new}") for old, new in pairs)


@given(
    tool=st.sampled_from(["claude-desktop", "claude-code", "cursor", "vscode"]),
    command=_texts,
    args=st.lists(_texts, max_size=6),
    env=st.dictionaries(st.text(min_size=1, max_size=5), _texts, max_size=4),
)
def test_import_never_expands_a_reference_nor_drops_an_argument(
    tool: Tool, command: str, args: list[str], env: dict[str, str]
) -> None:
    outcome = _convert(tool, {"command": command, "args": args, "env": env})
    if isinstance(outcome, Skipped):
        assert outcome.reason
        return
    entry = outcome.entry
    assert isinstance(entry["args"], list)
    assert isinstance(entry["env"], dict)
    assert len(entry["args"]) == len(args)
    assert _same_but_for_env_prefix(command, str(entry["command"]))
    assert all(_same_but_for_env_prefix(a, b) for a, b in zip(args, entry["args"], strict=True))
    assert list(entry["env"]) == list(env)
    assert all(_same_but_for_env_prefix(env[k], entry["env"][k]) for k in env)
    assert isinstance(outcome.spec, StdioServerSpec)
    assert outcome.spec.args == tuple(entry["args"])


@given(
    tool=st.sampled_from(["claude-desktop", "claude-code", "cursor", "vscode"]),
    args=st.lists(st.text().filter(lambda s: "${" not in s), max_size=6),
)
def test_text_without_references_is_carried_over_unchanged(tool: Tool, args: list[str]) -> None:
    candidate = _offered(tool, {"command": "srv", "args": args})
    assert candidate.entry == {"command": "srv", "args": args}


# --- where the servers sit in each kind of file -----------------------------------------------------


def _source(tool: Tool, layout: Any, *, repo: bool = False, path: str = "/f.json") -> SourceFile:
    return SourceFile(tool, Path(path), repo, layout)


def test_claude_json_gives_this_projects_servers_first_then_the_users_and_no_other_projects() -> None:
    doc = {
        "numStartups": 3,
        "mcpServers": {"mine": {"type": "stdio", "command": "a"}},
        "projects": {
            "/work/other": {"mcpServers": {"elsewhere": {"type": "stdio", "command": "b"}}},
            str(WS): {"allowedTools": [], "mcpServers": {"local": {"type": "stdio", "command": "c"}}},
        },
    }
    reading = read_source(_source("claude-code", "claude-json"), doc, project_keys=(str(WS),))
    assert [c.name for c in reading.candidates] == ["local", "mine"]
    local, mine = reading.candidates
    assert local.origin.project == str(WS)
    assert mine.origin.project is None
    assert not local.origin.repo_authored  # the user added it, for this project
    assert local.origin.describe() == f"Claude Code · /f.json (for {WS})"
    assert reading.problems == ()
    (other,) = reading.elsewhere  # the other project's servers: named, not offered
    assert (other.origin.project, other.names) == ("/work/other", ("elsewhere",))


def test_claude_json_takes_the_first_name_of_this_workspace_that_has_servers() -> None:
    """Claude Code 2.1 keeps a repository's local servers under its main worktree's folder (shared
    by subfolders and worktrees); a section of the folder itself without servers is no match."""
    doc = {
        "projects": {
            str(WS / "sub"): {"allowedTools": [], "mcpServers": {}},
            str(WS): {"mcpServers": {"pg": {"type": "stdio", "command": "pg-mcp"}}},
            "/gone": {"mcpServers": {}},
        },
    }
    keys = (str(WS / "sub"), str(WS))
    reading = read_source(_source("claude-code", "claude-json"), doc, project_keys=keys)
    assert [(c.name, c.origin.project) for c in reading.candidates] == [("pg", str(WS))]
    assert reading.elsewhere == ()  # a project without servers is not worth naming


def test_vscode_reads_servers_from_mcp_json_and_from_the_mcp_section_of_user_settings() -> None:
    mcp_json = {
        "inputs": [{"id": "x", "type": "promptString"}],
        "servers": {"a": {"type": "stdio", "command": "a"}},
    }
    settings = {"editor.fontSize": 13, "mcp": {"servers": {"b": {"type": "stdio", "command": "b"}}}}
    assert [c.name for c in read_source(_source("vscode", "servers"), mcp_json).candidates] == ["a"]
    assert [c.name for c in read_source(_source("vscode", "vscode-settings"), settings).candidates] == ["b"]
    assert read_source(_source("vscode", "vscode-settings"), {"editor.fontSize": 13}) == SourceReading()


@pytest.mark.parametrize("doc", [None, {}, [], {"preferences": {"quickEntry": True}}])
def test_a_file_without_servers_gives_nothing_and_no_problem(doc: object) -> None:
    assert read_source(_source("claude-desktop", "mcpServers"), doc) == SourceReading()


def test_a_malformed_file_is_a_problem_naming_file_and_key() -> None:
    top = read_source(_source("cursor", "mcpServers", path="/c.json"), ["not", "an", "object"])
    assert [str(p) for p in top.problems] == ["/c.json: (top level): expected a JSON object"]
    servers = read_source(_source("vscode", "servers", path="/v.json"), {"servers": ["a"]})
    assert [str(p) for p in servers.problems] == ["/v.json: servers: expected an object of servers"]


def test_one_bad_entry_never_hides_the_good_ones() -> None:
    doc = {"mcpServers": {"bad": {"command": 1}, "good": {"command": "ok"}, "worse": "x"}}
    reading = read_source(_source("cursor", "mcpServers"), doc)
    assert [c.name for c in reading.candidates] == ["good"]
    assert [s.name for s in reading.skipped] == ["bad", "worse"]


# --- where to look -----------------------------------------------------------------------------------


def test_linux_paths_and_which_files_a_repository_wrote() -> None:
    found = {(s.tool, str(s.path)): s.repo_authored for s in source_files(SearchRoots(HOME, WS))}
    assert found == {
        ("claude-desktop", "/home/me/.config/Claude/claude_desktop_config.json"): False,
        ("claude-code", "/home/me/.claude.json"): False,
        ("cursor", "/home/me/.cursor/mcp.json"): False,
        ("vscode", "/home/me/.config/Code/User/mcp.json"): False,
        ("vscode", "/home/me/.config/Code/User/settings.json"): False,
        ("claude-code", "/work/proj/.mcp.json"): True,
        ("cursor", "/work/proj/.cursor/mcp.json"): True,
        ("vscode", "/work/proj/.vscode/mcp.json"): True,
    }


def test_platform_config_dirs() -> None:
    def desktop(roots: SearchRoots) -> str:
        return str(source_files(roots, ["claude-desktop"])[0].path)

    assert desktop(SearchRoots(HOME, WS, "darwin")) == (
        "/home/me/Library/Application Support/Claude/claude_desktop_config.json"
    )
    assert (
        desktop(SearchRoots(HOME, WS, "linux", config_home=Path("/xdg")))
        == "/xdg/Claude/claude_desktop_config.json"
    )
    assert desktop(SearchRoots(HOME, WS, "win32", appdata=Path("/appdata"))) == (
        "/appdata/Claude/claude_desktop_config.json"
    )
    vscode = [
        str(s.path) for s in source_files(SearchRoots(HOME, WS, "darwin"), ["vscode"]) if not s.repo_authored
    ]
    assert vscode == [
        "/home/me/Library/Application Support/Code/User/mcp.json",
        "/home/me/Library/Application Support/Code/User/settings.json",
    ]


def test_only_the_chosen_tools_and_a_home_workspace_reads_the_users_file_once() -> None:
    assert {s.tool for s in source_files(SearchRoots(HOME, WS), ["cursor"])} == {"cursor"}
    at_home = source_files(SearchRoots(HOME, HOME), ["cursor"])
    assert [(str(s.path), s.repo_authored) for s in at_home] == [("/home/me/.cursor/mcp.json", False)]
