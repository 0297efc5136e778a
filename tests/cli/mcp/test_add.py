"""`levelcode mcp add` as Claude Code's `claude mcp add` is written in the wild (real processes, real
servers, an isolated LEVELCODE_HOME): `--transport stdio|http|sse`, options before or after NAME,
`-s/--scope user|project|local`, `-e/--env`, `-H/--header`, `add-json`, `add-from-claude-desktop`.
Load-bearing direction: a form typed wrong writes nothing and its error names the right form,
with the user's own name and URL; `-s project` writes the workspace's .mcp.json and nothing else,
never through a symbolic link, and what it adds asks before it starts. The second corpus: each
form from public docs is stored as the entry config loading reads, and the server it names runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.mcp.test_manage import approve, snapshot
from tests.support.cli import run_cli, write_settings
from tests.support.http_servers import everything, running, sdk_server
from tests.support.servers import FAULT_SERVER

FAULT = [sys.executable, str(FAULT_SERVER)]


def _add(home: Path, workspace: Path, *args: str) -> Any:
    return run_cli(["-C", str(workspace), "mcp", *args], home, cwd=workspace)


def _servers(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]


# Each as published in Claude Code's documentation and in servers' READMEs (options before or
# after NAME, `--` or not), with the entry it must leave in settings.json.
IN_THE_WILD = {
    "http, options first": (
        "notion",
        ["add", "--transport", "http", "notion", "https://mcp.notion.com/mcp"],
        {"url": "https://mcp.notion.com/mcp"},
    ),
    "http with a header after the URL": (
        "corridor",
        [
            "add",
            "--transport",
            "http",
            "corridor",
            "https://a.example/api/mcp",
            "--header",
            "Authorization: Bearer x",
        ],
        {"url": "https://a.example/api/mcp", "headers": {"Authorization": "Bearer x"}},
    ),
    "sse, short options": (
        "linear",
        ["add", "-t", "sse", "-H", "X-Key: ${K}", "linear", "https://mcp.linear.app/sse"],
        {"type": "sse", "url": "https://mcp.linear.app/sse", "headers": {"X-Key": "${K}"}},
    ),
    "transport after the name": (
        "stripe",
        ["add", "stripe", "--transport", "http", "https://mcp.stripe.com"],
        {"url": "https://mcp.stripe.com"},
    ),
    "--env after the name, then --": (
        "clickup",
        ["add", "clickup", "--env", "KEY=YOUR_KEY", "--env", "TEAM=7", "--", "npx", "-y", "@h/clickup-mcp"],
        {"command": "npx", "args": ["-y", "@h/clickup-mcp"], "env": {"KEY": "YOUR_KEY", "TEAM": "7"}},
    ),
    "-e before the name": (
        "my-server",
        ["add", "-e", "API_KEY=abc", "-e", "BASE=https://x", "my-server", "--", "npx", "my-mcp-server"],
        {"command": "npx", "args": ["my-mcp-server"], "env": {"API_KEY": "abc", "BASE": "https://x"}},
    ),
    "stdio said outright, no --": (
        "pg",
        ["add", "--transport", "stdio", "--scope", "user", "pg", "npx", "-y", "@bytebase/dbhub"],
        {"command": "npx", "args": ["-y", "@bytebase/dbhub"]},
    ),
    "oauth client": (
        "s",
        [
            "add",
            "--transport",
            "http",
            "--client-id",
            "abc",
            "--callback-port",
            "8976",
            "s",
            "https://a.example",
        ],
        {"url": "https://a.example", "oauth": {"clientId": "abc", "callbackPort": 8976}},
    ),
    "several env entries after one -e, as Claude Code's <env...>": (
        "multi",
        ["add", "multi", "-e", "A=1", "B=2", "--", "x", "y"],
        {"command": "x", "args": ["y"], "env": {"A": "1", "B": "2"}},
    ),
    "several after one -e, before the name": (
        "multi",
        ["add", "-e", "A=1", "B=x=y", "multi", "--", "x"],
        {"command": "x", "env": {"A": "1", "B": "x=y"}},
    ),
    "several headers after one -H, after the URL": (
        "two",
        ["add", "-t", "http", "two", "https://a.example/mcp", "-H", "X-A: 1", "X-B: 2"],
        {"url": "https://a.example/mcp", "headers": {"X-A": "1", "X-B": "2"}},
    ),
    "several after one --header, before the name": (
        "two",
        ["add", "-t", "http", "--header", "X-A: 1", "X-B: 2", "two", "https://a.example/mcp"],
        {"url": "https://a.example/mcp", "headers": {"X-A": "1", "X-B": "2"}},
    ),
    "the server's own -e after its command stays its own": (
        "own",
        ["add", "-e", "A=1", "own", "--", "x", "-e", "B=2", "C=3"],
        {"command": "x", "args": ["-e", "B=2", "C=3"], "env": {"A": "1"}},
    ),
    "the server's own -e, no --": (
        "own",
        ["add", "-t", "stdio", "own", "x", "-e", "B=2", "C=3"],
        {"command": "x", "args": ["-e", "B=2", "C=3"]},
    ),
    "add-json, http": (
        "weather",
        ["add-json", "weather", '{"type": "http", "url": "https://api.weather.example/mcp"}'],
        {"type": "http", "url": "https://api.weather.example/mcp"},
    ),
    "add-json, stdio": (
        "time",
        ["add-json", "time", '{"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}'],
        {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]},
    ),
}


@pytest.mark.parametrize(("name", "args", "entry"), IN_THE_WILD.values(), ids=IN_THE_WILD.keys())
def test_claude_codes_forms_are_stored_as_config_loading_reads_them(
    isolated_home: Path, tmp_path: Path, name: str, args: list[str], entry: dict[str, Any]
) -> None:
    done = _add(isolated_home, tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert _servers(isolated_home / "settings.json") == {name: entry}
    assert list(tmp_path.iterdir()) == []  # nothing in the workspace


def test_add_json_reads_the_entry_from_stdin_after_a_dash(isolated_home: Path, tmp_path: Path) -> None:
    entry = {"command": "uvx", "args": ["mcp-server-time"]}
    done = run_cli(
        ["-C", str(tmp_path), "mcp", "add-json", "time", "-"], isolated_home, input_text=json.dumps(entry)
    )
    assert done.returncode == 0, done.stderr
    assert _servers(isolated_home / "settings.json") == {"time": entry}
    unread = (("", "stdin held no JSON"), ("{command", "the JSON read from stdin is not valid JSON"))
    for text, said in unread:
        refused = run_cli(["mcp", "add-json", "other", "-"], isolated_home, cwd=tmp_path, input_text=text)
        assert refused.returncode == 2
        assert said in refused.stderr
        assert "--json" not in refused.stderr
    assert list(_servers(isolated_home / "settings.json")) == ["time"]


# What is typed wrong, and the words of the error that give the right form.
REFUSED = {
    "a URL without a transport": (
        ["add", "notion", "https://mcp.notion.com/mcp"],
        "levelcode mcp add --transport http notion https://mcp.notion.com/mcp",
    ),
    "a URL after --": (
        ["add", "notion", "--", "https://mcp.notion.com/mcp"],
        "levelcode mcp add --transport http notion https://mcp.notion.com/mcp",
    ),
    "http with a command": (
        ["add", "--transport", "http", "fs", "--", "npx", "pkg"],
        "--transport http takes the server's URL, not a command: levelcode mcp add --transport http fs https://",
    ),
    "stdio with a URL": (["add", "-t", "stdio", "s", "https://a.example"], "a URL takes --transport http"),
    "a pair where the name goes": (["add", "B=2", "--", "x"], "looks like an env entry"),
    "an env entry that is not one": (["add", "s", "-e", "A", "--", "x"], "-e 'A': expected KEY=VALUE"),
    "a header for a command": (["add", "s", "-H", "A: b", "--", "x"], "--header: for HTTP servers"),
    "a client secret": (["add", "-t", "http", "--client-secret", "s", "https://a.example"], "clientSecret"),
    "add-json not JSON": (["add-json", "s", "{command: x}"], "ENTRY is not valid JSON"),
}


@pytest.mark.parametrize(("args", "advice"), REFUSED.values(), ids=REFUSED.keys())
def test_a_wrong_form_writes_nothing_and_names_the_right_one(
    isolated_home: Path, tmp_path: Path, args: list[str], advice: str
) -> None:
    path = write_settings(isolated_home, {"model": "m"})
    before = path.read_bytes()
    done = _add(isolated_home, tmp_path, *args)
    assert done.returncode == 2, done.stdout
    assert advice in done.stderr
    assert done.stderr.startswith("levelcode: ")
    assert "Traceback" not in done.stderr
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_transport_or_scope_lists_the_known_ones(isolated_home: Path, tmp_path: Path) -> None:
    for args, known in (
        (
            ["-t", "websocket", "s", "ws://a"],
            "invalid choice: 'websocket' (choose from 'stdio', 'http', 'sse')",
        ),
        (
            ["s", "-s", "global", "--", "x"],
            "invalid choice: 'global' (choose from 'user', 'project', 'local')",
        ),
    ):
        done = _add(isolated_home, tmp_path, "add", *args)
        assert done.returncode == 2
        assert known in done.stderr
    assert not (isolated_home / "settings.json").exists()


def test_servers_added_in_claude_codes_words_run(isolated_home: Path, tmp_path: Path) -> None:
    with running(sdk_server()) as http, running(everything("sse")) as sse:
        for args in (
            ["add", "--transport", "stdio", "fault", "--", *FAULT],
            ["add", "--transport", "http", "remote", http.url],
            ["add", "-t", "sse", "old", sse.url],
        ):
            assert _add(isolated_home, tmp_path, *args).returncode == 0
        calls = [
            _add(isolated_home, tmp_path, "call", "fault", "echo", '{"message": "stdio"}'),
            _add(isolated_home, tmp_path, "call", "remote", "echo", '{"message": "http"}'),
            _add(isolated_home, tmp_path, "call", "old", "get-sum", '{"a": 2, "b": 3}'),
        ]
    assert [(c.returncode, c.stdout) for c in calls] == [
        (0, "stdio\n"),
        (0, "Echo: http\n"),
        (0, "The sum of 2 and 3 is 5.\n"),
    ], [c.stderr for c in calls]


# --- scopes ------------------------------------------------------------------------------------


def test_project_scope_writes_the_workspaces_mcp_json_and_asks_before_it_starts(
    isolated_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / "main.py").write_text("print(1)\n")
    done = _add(isolated_home, workspace, "add", "-s", "project", "fault", "--", *FAULT)
    assert done.returncode == 0, done.stderr
    project = workspace / ".mcp.json"
    assert done.stdout.splitlines()[0] == f"Added MCP server 'fault' in {project}"
    assert "LevelCode asks before it starts it" in done.stdout
    assert "levelcode mcp trust fault" in done.stdout
    assert _servers(project) == {"fault": {"command": FAULT[0], "args": FAULT[1:]}}
    assert project.stat().st_mode & 0o777 == 0o644  # a file to share: as git checks files out
    assert sorted(p.name for p in workspace.iterdir()) == [".mcp.json", "main.py"]  # no lock file left
    assert not (isolated_home / "settings.json").exists()
    listed = _add(isolated_home, workspace, "list", "-v")
    assert f"fault · needs approval · workspace · {project}" in listed.stdout
    approve(workspace, "fault")
    called = _add(isolated_home, workspace, "call", "fault", "echo", '{"message": "approved"}')
    assert (called.returncode, called.stdout) == (0, "approved\n"), called.stderr
    removed = _add(isolated_home, workspace, "remove", "fault", "-s", "project")
    assert removed.returncode == 0, removed.stderr
    assert "levelcode mcp revoke fault" in removed.stdout  # the approval is not silently kept
    assert _servers(project) == {}


def test_project_scope_keeps_the_files_shape_and_other_keys(isolated_home: Path, tmp_path: Path) -> None:
    project = tmp_path / ".mcp.json"
    project.write_text(json.dumps({"theirs": {"command": "t"}}, indent=4))  # the bare map of servers
    project.chmod(0o664)
    assert (
        _add(isolated_home, tmp_path, "add-json", "-s", "project", "mine", '{"command": "m"}').returncode == 0
    )
    assert json.loads(project.read_text()) == {"theirs": {"command": "t"}, "mine": {"command": "m"}}
    assert project.stat().st_mode & 0o777 == 0o664
    again = _add(isolated_home, tmp_path, "add", "-s", "project", "mine", "--", "other")
    assert again.returncode == 1
    assert f"there is already a server named 'mine' in {project}" in again.stderr


def test_project_scope_never_writes_through_a_symbolic_link(isolated_home: Path, tmp_path: Path) -> None:
    """A repository that plants .mcp.json -> your settings would get them (an API key, say) copied
    into the repository by the first `mcp add -s project`."""
    settings = write_settings(isolated_home, {"apiKey": "sk-secret", "mcpServers": {}})
    before = settings.read_bytes()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".mcp.json").symlink_to(settings)
    snap = snapshot(repo)
    done = _add(isolated_home, repo, "add", "-s", "project", "x", "--", "echo")
    assert done.returncode == 1
    assert f"{repo / '.mcp.json'} is not a plain file" in done.stderr
    assert settings.read_bytes() == before
    assert snapshot(repo) == snap
    assert (repo / ".mcp.json").is_symlink()
    assert all(
        "sk-secret" not in p.read_text() for p in repo.rglob("*") if p.is_file() and not p.is_symlink()
    )


def test_a_broken_project_file_is_never_overwritten(isolated_home: Path, tmp_path: Path) -> None:
    project = tmp_path / ".mcp.json"
    project.write_text('{"mcpServers": {"a": {"command": "x"},}}')
    done = _add(isolated_home, tmp_path, "add", "-s", "project", "b", "--", "y")
    assert done.returncode == 1
    trailing = "not valid JSON: a comma before '}'; JSON allows no trailing comma"
    assert done.stderr.startswith(f"levelcode: {project}:1:38: {trailing}; fix it first")
    assert project.read_text() == '{"mcpServers": {"a": {"command": "x"},}}'


def _git_repo_with_worktree(root: Path) -> tuple[Path, Path]:
    repo, worktree = root / "repo", root / "repo-wt"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "first"], check=True)
    subprocess.run([*git, "-C", str(repo), "worktree", "add", "-q", str(worktree)], check=True)
    return repo, worktree


def _listed(home: Path, workspace: Path) -> dict[str, tuple[str, str]]:
    done = _add(home, workspace, "list", "--json")
    return {s["name"]: (s["state"], s["tier"]) for s in json.loads(done.stdout)["servers"]}


def test_local_scope_is_this_workspace_only_and_starts_without_asking(
    isolated_home: Path, tmp_path: Path
) -> None:
    """-s local: the user's own server (no card, as their settings'), kept outside the repository,
    in every worktree of it and in no other workspace; listed, shown and removed as local."""
    repo, worktree = _git_repo_with_worktree(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    done = _add(isolated_home, repo, "add", "-s", "local", "fault", "--", *FAULT)
    assert done.returncode == 0, done.stderr
    (kept,) = (isolated_home / "local-servers").glob("*.json")
    assert done.stdout.splitlines()[:2] == [
        f"Added MCP server 'fault' in {kept}",
        "  scope:   local — yours, this workspace only (every worktree of the repository whose git "
        f"folder is {repo / '.git'})",
    ]
    assert "without asking for approval, in this workspace only" in done.stdout
    assert kept.stat().st_mode & 0o777 == 0o600
    assert _servers(kept) == {"fault": {"command": FAULT[0], "args": FAULT[1:]}}
    assert not (isolated_home / "settings.json").exists()
    assert sorted(p.name for p in repo.iterdir()) == [".git"]  # nothing in the repository
    for workspace in (repo, worktree):
        assert _listed(isolated_home, workspace) == {"fault": ("running", "local")}
    called = _add(isolated_home, worktree, "call", "fault", "echo", '{"message": "here"}')
    assert (called.returncode, called.stdout) == (0, "here\n"), called.stderr
    assert _listed(isolated_home, other) == {}
    assert _add(isolated_home, other, "call", "fault", "echo").returncode == 2
    got = _add(isolated_home, repo, "get", "fault", "--no-start")
    assert got.stdout.splitlines()[0] == f"fault · local · {kept} (yours, for this workspace only)"
    removed = _add(isolated_home, worktree, "remove", "fault")
    assert removed.stdout.splitlines()[0] == f"Removed MCP server 'fault' from {kept}", removed.stderr
    assert _listed(isolated_home, repo) == {}


def test_a_local_server_wins_its_name_over_your_settings_in_its_workspace(
    isolated_home: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert _add(isolated_home, tmp_path, "add", "fault", "--", *FAULT, "--odd-names").returncode == 0
    done = _add(isolated_home, tmp_path, "add", "-s", "local", "fault", "--", *FAULT)
    assert done.returncode == 0, done.stderr
    assert (
        f"note: {isolated_home / 'settings.json'} (user) also names a server 'fault'; this one runs here."
        in (done.stdout)
    )
    launches = {}
    for workspace in (tmp_path, other):
        listed = json.loads(_add(isolated_home, workspace, "list", "--json").stdout)["servers"]
        launches[workspace] = [(s["tier"], s["launch"].endswith("--odd-names")) for s in listed]
    assert launches == {tmp_path: [("local", False)], other: [("user", True)]}


def test_user_scope_is_the_default(isolated_home: Path, tmp_path: Path) -> None:
    for scope in ([], ["-s", "user"], ["--scope", "user"]):
        done = _add(isolated_home, tmp_path, "add", *scope, "--replace", "mine", "--", "srv")
        assert done.returncode == 0, done.stderr
        assert "note: -s local" not in done.stdout
    assert _servers(isolated_home / "settings.json") == {"mine": {"command": "srv"}}
    assert list(tmp_path.iterdir()) == []


def test_add_from_claude_desktop_imports_its_servers(isolated_home: Path, tmp_path: Path) -> None:
    desktop = Path.home() / ".config/Claude/claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_text(json.dumps({"mcpServers": {"fault": {"command": FAULT[0], "args": FAULT[1:]}}}))
    dry = _add(isolated_home, tmp_path, "add-from-claude-desktop", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"fault · from Claude Desktop · {desktop}" in dry.stdout
    assert not (isolated_home / "settings.json").exists()
    done = _add(isolated_home, tmp_path, "add-from-claude-desktop", "-s", "user", "--yes")
    assert done.returncode == 0, done.stderr
    assert _servers(isolated_home / "settings.json") == {"fault": {"command": FAULT[0], "args": FAULT[1:]}}
    project = _add(isolated_home, tmp_path, "add-from-claude-desktop", "-s", "project")
    assert project.returncode == 2
    assert "levelcode mcp add -s project" in project.stderr


def test_help_names_the_transports_scopes_and_both_spellings(isolated_home: Path) -> None:
    text = run_cli(["mcp", "add", "--help"], isolated_home).stdout
    for words in ("--transport http|sse", "-t {stdio,http,sse}", "-s {user,project,local}", "-e KEY=VALUE"):
        assert words in text
    assert "-H 'KEY: VALUE', --header 'KEY: VALUE'" in text
    assert "mcp add-json NAME ENTRY" in text
    assert "add-from-claude-desktop" in run_cli(["mcp", "--help"], isolated_home).stdout
    assert "The default is user, where Claude Code's is local" in text
    for action in ("add", "remove", "call", "list"):  # beside Claude Code's, where it has the command
        assert "exit status:" in run_cli(["mcp", action, "--help"], isolated_home).stdout, action


def test_a_header_value_is_never_printed(isolated_home: Path, tmp_path: Path) -> None:
    """`mcp add`, `mcp get` (text and JSON), `mcp list` (text and JSON) and the errors of a header
    typed wrong show a header by its name and a mask; the value reaches only the server."""
    secret = "sk-live-4f9a77"
    with running(sdk_server()) as http:
        added = _add(
            isolated_home,
            tmp_path,
            "add",
            "-t",
            "http",
            "api",
            http.url,
            "-H",
            f"Authorization: Bearer {secret}",
            f"X-Team: {secret}-team",
        )
        shown = [
            added,
            *(
                _add(isolated_home, tmp_path, *words)
                for words in (["get", "api"], ["get", "api", "--json"], ["list"], ["list", "--json"])
            ),
            _add(
                isolated_home,
                tmp_path,
                "add",
                "-t",
                "http",
                "x",
                http.url,
                "-H",
                f"Authorization Bearer {secret}",
            ),
            _add(isolated_home, tmp_path, "add", "x", "--replace", f"X-Key: {secret}", "--", "y"),
        ]
        called = _add(isolated_home, tmp_path, "call", "api", "echo", '{"message": "through"}')
    assert added.returncode == 0, added.stderr
    assert "  header:  Authorization: Bearer ****" in added.stdout
    assert "  header:  X-Team: ****" in added.stdout
    assert [done.returncode for done in shown[1:]] == [0, 0, 0, 0, 2, 2]
    assert '"Authorization": "Bearer ****"' in shown[2].stdout
    for done in shown:
        assert secret not in done.stdout + done.stderr, done.args
    assert "--header '****': expected 'Key: Value'" in shown[5].stderr
    assert "unexpected 'X-Key: ****'" in shown[6].stderr
    assert (called.returncode, called.stdout) == (0, "Echo: through\n"), called.stderr
    assert _servers(isolated_home / "settings.json")["api"]["headers"]["Authorization"] == f"Bearer {secret}"
