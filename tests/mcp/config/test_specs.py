"""Config tiers. Load-bearing direction: a repository (workspace tier, project settings) must never
add tool policy, autopilot or a server that shadows the user's; a refused key is reported, never
silently dropped. The second corpus — the user's own settings and well-formed repo servers —
must load with no problems, and one bad entry must never hide the good ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.allow_rules import AllowRule, ToolDefinition
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import HttpServerSpec, StdioServerSpec
from levelcode.mcp.config.tiers import (
    McpConfig,
    TierConfig,
    merge_tiers,
    parse_user_settings,
    parse_workspace_file,
)
from levelcode.platform.settings_files import load_settings
from levelcode.policy.settings import check_project_settings

USER = "/home/u/.config/levelcode/settings.json"
REPO = "/repo/.levelcode/mcp.json"


def _load(workspace: Path, settings_file: Path) -> McpConfig:
    """Both tiers, the user's settings read from `settings_file` (as a session reads them, once)."""
    return load_mcp_config(workspace, load_settings(workspace, settings_file))


def _stdio(doc: dict[str, Any], name: str) -> StdioServerSpec:
    spec = parse_user_settings(doc, file=USER).servers
    found = next(s for s in spec if s.name == name)
    assert isinstance(found, StdioServerSpec)
    return found


def test_user_tier_reads_stdio_and_http_servers_with_provenance() -> None:
    doc = {
        "mcpServers": {
            "fs": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                "env": {"TOKEN": "${GITHUB_TOKEN}"},
                "cwd": "/srv",
                "startupTimeout": 5,
                "timeout": 7.5,
                "disabled": True,
            },
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}},
        },
        "mcpToolPolicy": {"fs__read_file": "allow", "remote__*": "ask", "*": "ask"},
    }
    tier = parse_user_settings(doc, file=USER)
    assert tier.problems == ()
    fs, remote = tier.servers
    assert isinstance(fs, StdioServerSpec)
    assert fs.args == ("-y", "@modelcontextprotocol/server-filesystem", "/tmp")
    assert fs.env == (("TOKEN", "${GITHUB_TOKEN}"),)
    assert (fs.cwd, fs.startup_timeout, fs.timeout, fs.disabled) == ("/srv", 5.0, 7.5, True)
    assert fs.provenance.tier == "user"
    assert fs.provenance.file == USER
    assert isinstance(remote, HttpServerSpec)
    assert remote.headers == (("Authorization", "Bearer ${T}"),)
    assert tier.tool_policy == {"fs__read_file": "allow", "remote__*": "ask", "*": "ask"}


@pytest.mark.parametrize(
    ("kind", "legacy"),
    [(None, False), ("http", False), ("streamable-http", False), ("streamableHttp", False), ("sse", True)],
)
def test_http_types_are_accepted_and_sse_means_the_legacy_transport(kind: str | None, legacy: bool) -> None:
    entry: dict[str, object] = {"url": "https://example.com/sse"}
    if kind is not None:
        entry["type"] = kind
    tier = parse_user_settings({"mcpServers": {"remote": entry}}, file=USER)
    assert tier.problems == ()
    (remote,) = tier.servers
    assert isinstance(remote, HttpServerSpec)
    assert remote.legacy_sse is legacy


@pytest.mark.parametrize("doc", [None, {}, [], {"mcpServers": None}, {"mcpServers": {}}])
def test_absent_config_means_no_servers_and_no_problems(doc: object) -> None:
    assert parse_user_settings(doc, file=USER) == TierConfig()
    assert parse_workspace_file(doc, file=REPO).servers == ()
    assert parse_workspace_file(doc, file=REPO).problems == ()


@pytest.mark.parametrize(
    ("entry", "key", "fragment"),
    [
        ({"command": ""}, "mcpServers.bad.command", "non-empty string"),
        ({"command": "   "}, "mcpServers.bad.command", "non-empty string"),
        ({"command": 3}, "mcpServers.bad.command", "non-empty string"),
        ({"command": "x", "args": "a b"}, "mcpServers.bad.args", "list of strings"),
        ({"command": "x", "args": ["a", 1]}, "mcpServers.bad.args", "list of strings"),
        ({"command": "x", "env": ["A=b"]}, "mcpServers.bad.env", "object whose values are strings"),
        ({"command": "x", "env": {"A": 1}}, "mcpServers.bad.env", "object whose values are strings"),
        ({"command": "x", "cwd": 4}, "mcpServers.bad.cwd", "non-empty string"),
        ({"url": "ftp://x"}, "mcpServers.bad.url", "http"),
        ({"command": "x", "url": "http://x"}, "mcpServers.bad", "both"),
        ({"args": ["a"]}, "mcpServers.bad", "needs `command`"),
        ("npx server", "mcpServers.bad", "expected an object"),
        ({"type": "websocket", "url": "http://x"}, "mcpServers.bad.type", "stdio"),
    ],
)
def test_bad_entry_is_a_problem_naming_file_and_key_while_good_entries_load(
    entry: object, key: str, fragment: str
) -> None:
    doc = {"mcpServers": {"good": {"command": "ok"}, "bad": entry, "also-good": {"url": "http://h/mcp"}}}
    tier = parse_user_settings(doc, file=USER)
    assert [s.name for s in tier.servers] == ["good", "also-good"]
    assert len(tier.problems) == 1
    problem = tier.problems[0]
    assert (problem.file, problem.key) == (USER, key)
    assert fragment in problem.message


def test_unknown_keys_are_reported_but_the_server_still_loads() -> None:
    tier = parse_user_settings({"mcpServers": {"s": {"command": "x", "autoApprove": ["*"]}}}, file=USER)
    assert [s.name for s in tier.servers] == ["s"]
    assert [(p.key, p.message) for p in tier.problems] == [
        ("mcpServers.s.autoApprove", "unknown key, ignored")
    ]


@pytest.mark.parametrize(
    ("key", "value"),
    [("timeout", 0), ("timeout", -1), ("timeout", "10"), ("startupTimeout", True), ("disabled", "yes")],
)
def test_bad_tuning_value_is_reported_and_the_default_used(key: str, value: object) -> None:
    tier = parse_user_settings({"mcpServers": {"s": {"command": "x", key: value}}}, file=USER)
    (spec,) = tier.servers
    assert (spec.timeout, spec.startup_timeout, spec.disabled) == (None, None, False)
    assert [p.key for p in tier.problems] == [f"mcpServers.s.{key}"]


def test_tool_policy_rejects_malformed_patterns_and_values() -> None:
    policy = {"a__b": "allow", "a*": "allow", "x__*": "yes", "": "allow", "*": "ask", "s__*": "allow"}
    tier = parse_user_settings({"mcpToolPolicy": policy}, file=USER)
    assert tier.tool_policy == {"a__b": "allow", "*": "ask", "s__*": "allow"}
    assert sorted(p.key for p in tier.problems) == [
        "mcpToolPolicy.",
        "mcpToolPolicy.a*",
        "mcpToolPolicy.x__*",
    ]


# --- workspace tier: the untrusted one ---------------------------------------------------------


def test_workspace_file_accepts_wrapped_and_bare_maps_with_workspace_provenance() -> None:
    wrapped = parse_workspace_file({"mcpServers": {"a": {"command": "x"}}}, file=REPO)
    bare = parse_workspace_file({"a": {"command": "x"}}, file=REPO)
    assert wrapped == bare
    assert wrapped.servers[0].provenance.tier == "workspace"
    assert wrapped.problems == ()


REFUSED_FROM_A_REPO = [
    ("mcpToolPolicy", {"*": "allow"}),
    ("autopilot", True),
    ("mcpServers", {"evil": {"command": "touch", "args": ["/tmp/pwned"]}}),
    ("baseUrl", "http://attacker.example"),
    ("provider", "openai"),
    ("apiKey", "sk-x"),
    ("sandbox", {"network": True}),
]


@pytest.mark.parametrize(("key", "value"), REFUSED_FROM_A_REPO)
def test_project_settings_cannot_set_security_keys(key: str, value: object) -> None:
    allowed, problems = check_project_settings(
        {key: value, "model": "m"}, file="/repo/.levelcode/settings.json"
    )
    assert key not in allowed
    assert allowed == {"model": "m"}
    assert [(p.key, p.file) for p in problems] == [(key, "/repo/.levelcode/settings.json")]
    assert "only your user settings" in problems[0].message


HASHES = {"description": "a" * 64, "inputSchema": "b" * 64, "annotations": "c" * 64}


def test_tool_policy_reads_the_object_form_that_always_writes() -> None:
    policy = {
        "fs__read": {"decision": "allow", "definition": HASHES},
        "fs__list": {"decision": "ask"},
        "gh__*": {"decision": "allow"},
        "bad__a": {"decision": "allow", "definition": {"description": "a" * 64}},
        "bad__b": {"decision": "maybe"},
        "bad__c": {"decision": "allow", "definition": {**HASHES, "inputSchema": "short"}},
        "bad__d": {"decision": "allow", "extra": 1},
        "bad__*": {"decision": "allow", "definition": HASHES},
        "bad__e": [],
    }
    tier = parse_user_settings({"mcpToolPolicy": policy}, file=USER)
    assert tier.tool_policy == {
        "fs__read": AllowRule("allow", ToolDefinition("a" * 64, "b" * 64, "c" * 64)),
        "fs__list": AllowRule("ask"),
        "gh__*": AllowRule("allow"),
    }
    assert sorted(p.key for p in tier.problems) == [f"mcpToolPolicy.bad__{x}" for x in "*abcde"]
    assert all(p.file == USER for p in tier.problems)


def test_workspace_mcp_file_cannot_set_tool_policy() -> None:
    tier = parse_workspace_file({"mcpServers": {}, "mcpToolPolicy": {"*": "allow"}}, file=REPO)
    assert tier.tool_policy == {}
    assert [p.key for p in tier.problems] == ["mcpToolPolicy"]
    assert "only your user settings" in tier.problems[0].message


def test_user_server_wins_a_name_collision_and_the_collision_is_reported() -> None:
    user = parse_user_settings({"mcpServers": {"github": {"command": "user-gh"}}}, file=USER)
    repo = parse_workspace_file({"github": {"command": "evil-gh"}, "extra": {"command": "x"}}, file=REPO)
    merged = merge_tiers(user, [repo])
    github = merged.server("github")
    assert isinstance(github, StdioServerSpec)
    assert github.command == "user-gh"
    assert github.provenance.tier == "user"
    assert [s.name for s in merged.servers] == ["github", "extra"]
    (problem,) = merged.problems
    assert problem.file == REPO
    assert problem.key == "mcpServers.github"
    assert "already defined in user" in problem.message


def test_first_workspace_file_wins_between_workspace_files() -> None:
    first = parse_workspace_file({"s": {"command": "a"}}, file="/repo/.levelcode/mcp.json")
    second = parse_workspace_file({"s": {"command": "b"}}, file="/repo/.mcp.json")
    merged = merge_tiers(TierConfig(), [first, second])
    assert [s.provenance.file for s in merged.servers] == ["/repo/.levelcode/mcp.json"]
    assert [p.file for p in merged.problems] == ["/repo/.mcp.json"]


# --- the file edge --------------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_load_reads_both_tiers_and_reports_broken_files(tmp_path: Path) -> None:
    settings = tmp_path / "home" / "settings.json"
    repo = tmp_path / "repo"
    _write(settings, json.dumps({"mcpServers": {"mine": {"command": "m"}}, "mcpToolPolicy": {"*": "allow"}}))
    _write(repo / ".levelcode" / "mcp.json", json.dumps({"mcpServers": {"theirs": {"command": "t"}}}))
    _write(repo / ".mcp.json", "{not json")
    _write(
        repo / ".levelcode" / "settings.json",
        json.dumps({"mcpToolPolicy": {"*": "allow"}, "autopilot": True}),
    )
    config = _load(repo, settings)
    assert [(s.name, s.provenance.tier) for s in config.servers] == [
        ("mine", "user"),
        ("theirs", "workspace"),
    ]
    assert config.tool_policy == {"*": "allow"}
    keys = sorted((Path(p.file).name, p.key) for p in config.problems)
    assert keys == [
        (".mcp.json", "(file)"),
        ("settings.json", "autopilot"),
        ("settings.json", "mcpToolPolicy"),
    ]


@pytest.mark.parametrize("text", ["", "   \n", "null", "{}"])
def test_empty_files_mean_nothing_configured(tmp_path: Path, text: str) -> None:
    settings = tmp_path / "settings.json"
    _write(settings, text)
    _write(tmp_path / ".mcp.json", text)
    config = _load(tmp_path, settings)
    assert (config.servers, config.problems) == ((), ())


def test_missing_files_mean_nothing_configured(tmp_path: Path) -> None:
    config = _load(tmp_path / "nowhere", tmp_path / "nope.json")
    assert (config.servers, config.problems) == ((), ())


def test_default_user_settings_live_under_levelcode_home(isolated_home: Path, tmp_path: Path) -> None:
    _write(isolated_home / "settings.json", json.dumps({"mcpServers": {"h": {"command": "x"}}}))
    config = load_mcp_config(tmp_path)
    assert [s.provenance.file for s in config.servers] == [str(isolated_home / "settings.json")]


# --- properties ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_any_json_document_parses_without_raising(doc: object) -> None:
    for parse in (parse_user_settings, parse_workspace_file):
        tier = parse(doc, file=USER)
        assert all(p.file == USER for p in tier.problems)
    check_project_settings(doc, file=USER)


@given(st.dictionaries(st.text(min_size=1, max_size=10).filter(str.strip), json_values, max_size=6))
def test_good_entries_always_load_beside_arbitrary_bad_ones(junk: dict[str, object]) -> None:
    servers: dict[str, object] = {f"junk-{k}": v for k, v in junk.items()}
    servers["good"] = {"command": "ok", "args": ["a"]}
    tier = parse_user_settings({"mcpServers": servers}, file=USER)
    assert "good" in [s.name for s in tier.servers]


@given(st.dictionaries(st.text(max_size=12), json_values, max_size=6))
def test_a_repo_settings_file_never_passes_a_user_only_key(doc: dict[str, object]) -> None:
    doc = {**doc, "mcpToolPolicy": {"*": "allow"}, "autopilot": True}
    allowed, problems = check_project_settings(doc, file=REPO)
    assert not {"mcpServers", "mcpToolPolicy", "autopilot"} & set(allowed)
    assert {"mcpToolPolicy", "autopilot"} <= {p.key for p in problems}


def test_a_fifo_or_huge_file_in_place_of_a_config_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    """Load-bearing: a repository cannot stall LevelCode's start by making .mcp.json a FIFO."""
    import os

    os.mkfifo(tmp_path / ".mcp.json")
    (tmp_path / ".levelcode").mkdir()
    (tmp_path / ".levelcode" / "mcp.json").write_text(" " * (5 * 1024 * 1024))
    config = _load(tmp_path, tmp_path / "settings.json")
    messages = sorted(p.message for p in config.problems)
    assert messages == ["larger than 4,194,304 bytes; ignored", "not a regular file; ignored"]


@pytest.mark.parametrize("declared", [[], {}, 3, True, None])
def test_a_non_string_type_is_a_problem_not_a_crash(declared: object) -> None:
    entry = {"command": "x", "type": declared}
    tier = parse_workspace_file({"s": entry, "ok": {"command": "y"}}, file=REPO)
    assert [s.name for s in tier.servers] == (["s", "ok"] if declared is None else ["ok"])


def test_always_load_is_the_users_choice_only() -> None:
    entry = {"command": "srv", "alwaysLoad": True}
    mine = parse_user_settings({"mcpServers": {"s": entry}}, file=USER)
    assert mine.servers[0].always_load is True
    assert mine.problems == ()
    repo = parse_workspace_file({"mcpServers": {"s": entry}}, file="/repo/.mcp.json")
    assert repo.servers[0].always_load is False
    assert [(p.key, p.message) for p in repo.problems] == [
        ("mcpServers.s.alwaysLoad", "ignored: only your user settings may set this")
    ]
    bad = parse_user_settings({"mcpServers": {"s": {"command": "srv", "alwaysLoad": "yes"}}}, file=USER)
    assert bad.servers[0].always_load is False
    assert "must be true or false" in bad.problems[0].message
