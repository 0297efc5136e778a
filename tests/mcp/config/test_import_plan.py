"""Which imported servers are added, and to which of the user's two files. Load-bearing direction:
a server Claude Code kept for one project (its local scope) or a workspace's file defined goes to the
user's servers for this workspace alone, never to the settings every workspace reads; a repository's
file never provides a server unless asked for, nor takes a name the user has in any of their files;
a name already in the file it would go to is never replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from levelcode.core.errors import ConfigError
from levelcode.mcp.config.edit import ServersDoc
from levelcode.mcp.config.import_plan import add_servers, plan_import
from levelcode.mcp.config.import_tools import Tool
from levelcode.mcp.config.importers import SourceFile, SourceReading, read_source
from levelcode.mcp.launch.plan import launch_text

# --- the plan: trust, names, first wins ------------------------------------------------------------


def _reading(
    tool: Tool, servers: dict[str, Any], *, repo: bool = False, path: str = "/f.json"
) -> SourceReading:
    layout = "servers" if tool == "vscode" else "mcpServers"
    key = "servers" if tool == "vscode" else "mcpServers"
    return read_source(SourceFile(tool, Path(path), repo, layout), {key: servers})


def test_repository_servers_are_held_back_unless_asked_for() -> None:
    readings = [
        _reading(
            "claude-code", {"repo": {"command": "node", "args": ["evil.js"]}}, repo=True, path="/ws/.mcp.json"
        ),
        _reading("cursor", {"mine": {"command": "uvx", "args": ["mine"]}}),
    ]
    plan = plan_import(readings, {}, include_repo=False)
    assert [c.name for c in plan.add] == ["mine"]
    assert [c.name for c in plan.held] == ["repo"]
    assert plan.held[0].origin.repo_authored
    asked = plan_import(readings, {}, include_repo=True)
    assert [c.name for c in asked.add] == ["mine", "repo"]
    assert asked.held == ()


def test_a_repository_never_takes_a_name_from_the_users_own_files_whatever_the_tool_order() -> None:
    readings = [
        _reading(
            "claude-code",
            {"github": {"command": "sh", "args": ["-c", "evil"]}},
            repo=True,
            path="/ws/.mcp.json",
        ),
        _reading(
            "cursor",
            {"github": {"command": "github-mcp-server", "args": ["stdio"]}},
            path="/h/.cursor/mcp.json",
        ),
    ]
    for include_repo in (False, True):
        plan = plan_import(readings, {}, include_repo=include_repo)
        assert [(c.name, c.origin.file) for c in plan.add] == [("github", "/h/.cursor/mcp.json")]
        assert plan.held == ()
        (dropped,) = plan.skipped
        assert dropped.origin.file == "/ws/.mcp.json"
        assert "also comes from Cursor · /h/.cursor/mcp.json, which is the one used" in dropped.reason


def test_a_name_already_in_the_users_settings_is_never_replaced() -> None:
    existing = {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "gh": {"command": "mine"}}
    readings = [
        _reading(
            "cursor",
            {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {}}, "gh": {"command": "theirs"}},
        )
    ]
    plan = plan_import(readings, existing, include_repo=True)
    assert plan.add == ()
    reasons = {s.name: s.reason for s in plan.skipped}
    assert reasons["time"] == "already in your settings, the same server"
    assert reasons["gh"].startswith(
        "a different server with this name is already in your settings; not replaced"
    )


def test_first_found_wins_among_the_users_own_files_and_the_rest_are_reported() -> None:
    readings = [
        _reading("claude-desktop", {"fs": {"command": "npx", "args": ["fs"]}}, path="/desktop.json"),
        _reading("cursor", {"fs": {"command": "npx", "args": ["fs"]}}, path="/cursor.json"),
        _reading("vscode", {"fs": {"type": "stdio", "command": "other"}}, path="/code.json"),
    ]
    plan = plan_import(readings, {}, include_repo=False)
    assert [(c.name, c.origin.file) for c in plan.add] == [("fs", "/desktop.json")]
    assert [s.reason.split(" also comes")[0] for s in plan.skipped] == [
        "the same server",
        "a server with this name",
    ]


def test_skips_and_problems_of_every_file_reach_the_plan() -> None:
    readings = [
        _reading("vscode", {"gh": {"type": "stdio", "command": "x", "env": {"T": "${input:t}"}}}),
        read_source(SourceFile("cursor", Path("/c.json"), False, "mcpServers"), 7),
    ]
    plan = plan_import(readings, {}, include_repo=False)
    assert [s.name for s in plan.skipped] == ["gh"]
    assert [p.file for p in plan.problems] == ["/c.json"]


# --- where each goes: this workspace's own servers stay this workspace's ----------------------------

CLAUDE_JSON = {
    "mcpServers": {"memory": {"type": "stdio", "command": "npx", "args": ["-y", "mcp-memory"], "env": {}}},
    "projects": {
        "/ws": {"mcpServers": {"pg": {"type": "stdio", "command": "pg-mcp", "args": [], "env": {}}}},
        "/elsewhere": {"mcpServers": {"other": {"type": "http", "url": "https://example.com/mcp"}}},
    },
}


def _claude_json(doc: dict[str, Any] = CLAUDE_JSON) -> SourceReading:
    source = SourceFile("claude-code", Path("/h/.claude.json"), False, "claude-json")
    return read_source(source, doc, project_keys=("/ws",))


def test_claude_codes_local_servers_go_to_this_workspace_and_its_user_servers_to_the_settings() -> None:
    plan = plan_import([_claude_json()], {}, include_repo=False)
    assert [c.name for c in plan.user] == ["memory"]
    assert [c.name for c in plan.local] == ["pg"]
    assert [(e.origin.project, e.names) for e in plan.elsewhere] == [("/elsewhere", ("other",))]
    assert plan.skipped == ()


def test_a_repositorys_servers_asked_for_are_this_workspaces_alone() -> None:
    readings = [_reading("claude-code", {"helper": {"command": "node"}}, repo=True, path="/ws/.mcp.json")]
    plan = plan_import(readings, {}, include_repo=True)
    assert (plan.user, [c.name for c in plan.local]) == ((), ["helper"])


def test_only_here_keeps_every_server_to_this_workspace() -> None:
    plan = plan_import([_claude_json()], {}, include_repo=False, only_here=True)
    assert (plan.user, [c.name for c in plan.local]) == ((), ["pg", "memory"])


def test_one_name_may_be_a_projects_own_and_the_users_as_in_claude_code() -> None:
    doc = {**CLAUDE_JSON, "mcpServers": {"pg": {"type": "stdio", "command": "pg-mcp", "args": ["--ro"]}}}
    plan = plan_import([_claude_json(doc)], {}, include_repo=False)
    assert [(c.name, launch_text(c.spec)) for c in plan.local] == [("pg", "pg-mcp")]
    assert [(c.name, launch_text(c.spec)) for c in plan.user] == [("pg", "pg-mcp --ro")]


def test_a_name_already_in_this_workspaces_servers_is_never_replaced() -> None:
    plan = plan_import([_claude_json()], {}, include_repo=False, here={"pg": {"command": "my-pg"}})
    assert plan.local == ()
    (kept,) = plan.skipped
    assert kept.reason == (
        "a different server with this name is already in your servers for this workspace; not "
        "replaced (to replace it, first run `levelcode mcp remove -s local pg`)"
    )


def test_a_repository_never_takes_a_name_the_user_has_in_either_file() -> None:
    repo = _reading("claude-code", {"gh": {"command": "sh"}}, repo=True, path="/ws/.mcp.json")
    for existing, here in (({"gh": {"command": "gh-mcp"}}, {}), ({}, {"gh": {"command": "gh-mcp"}})):
        plan = plan_import([repo], existing, here=here, include_repo=True)
        assert plan.add == ()
        assert "a different server with this name is already in your" in plan.skipped[0].reason


# --- writing: into mcpServers only, other keys kept, nothing replaced ---------------------------------


def test_add_servers_keeps_everything_else_and_replaces_nothing() -> None:
    plan = plan_import(
        [_reading("cursor", {"a": {"command": "a"}, "b": {"command": "b"}})], {}, include_repo=False
    )
    doc: dict[str, Any] = {
        "model": "m",
        "mcpToolPolicy": {"x__y": "allow"},
        "mcpServers": {"b": {"command": "mine"}},
    }
    new, added, kept = add_servers(doc, plan.add)
    assert (added, kept) == (["a"], ["b"])
    assert new == {
        "model": "m",
        "mcpToolPolicy": {"x__y": "allow"},
        "mcpServers": {"b": {"command": "mine"}, "a": {"command": "a"}},
    }
    assert doc["mcpServers"] == {"b": {"command": "mine"}}  # the document given is not changed
    local = ServersDoc("local", "your servers for this workspace")
    fresh: dict[str, Any] = {"workspace": "path:/ws", "mcpServers": None}
    assert add_servers(fresh, plan.add, local) == (
        {"workspace": "path:/ws", "mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}},
        ["a", "b"],
        [],
    )


def test_add_servers_refuses_a_file_whose_servers_are_not_an_object() -> None:
    plan = plan_import([_reading("cursor", {"a": {"command": "a"}})], {}, include_repo=False)
    doc: dict[str, Any] = {"mcpServers": ["a"]}
    with pytest.raises(ConfigError, match="not an object; fix it first"):
        add_servers(doc, plan.add)
    assert doc == {"mcpServers": ["a"]}
