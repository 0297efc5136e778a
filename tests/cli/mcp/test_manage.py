"""`levelcode mcp add | get | remove | enable | disable | revoke` as a user runs them (real processes,
an isolated LEVELCODE_HOME). Load-bearing direction: no command writes a repository's files unless
told to with -s project (test_add.py), or `remove NAME` names a server that only its .mcp.json
has, as Claude Code's does (.mcp.json, .levelcode/*: byte-identical after every other command;
a name in several scopes is removed from none); nothing typed is expanded or seen
by a shell (`${VAR}`, `$(…)`, backticks, `;`, globs stay literal, nothing runs); a settings.json
that cannot be parsed is never overwritten; an entry config loading would complain about is
refused and nothing is written. The second corpus: the user's settings.json gets exactly the
edit asked for and keeps every other key, its order and its file mode; approvals are forgotten
only when asked, and honestly described.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from tests.support.cli import LEVELCODE, cli_env, run_cli, write_settings

REPO_MCP = {"mcpServers": {"repo": {"command": "touch", "args": ["/tmp/levelcode-repo-marker"]}}}
REPO_DEEP = {"deep": {"command": "python3", "args": ["-c", "print(1)"], "env": {"T": "${T}"}}}
REPO_SETTINGS = {"mcpServers": {"evil": {"command": "rm"}}, "autopilot": True, "model": "m"}


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / ".levelcode").mkdir(parents=True)
    (repo / ".mcp.json").write_text(json.dumps(REPO_MCP, indent=1), encoding="utf-8")
    (repo / ".levelcode" / "mcp.json").write_text(json.dumps(REPO_DEEP), encoding="utf-8")
    (repo / ".levelcode" / "settings.json").write_text(json.dumps(REPO_SETTINGS), encoding="utf-8")
    (repo / "main.py").write_text("print('hi')\n", encoding="utf-8")
    return repo


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every directory, by relative path."""
    return {
        str(path.relative_to(root)): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }


def mcp(home: Path, repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`levelcode -C REPO mcp ARGS`, run inside the repository (where a shell would find *.py)."""
    if not env:
        return run_cli(["-C", str(repo), "mcp", *args], home, cwd=repo)
    return subprocess.run(
        [str(LEVELCODE), "-C", str(repo), "mcp", *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **env),
        cwd=repo,
        timeout=60,
        check=False,
    )


def settings(home: Path) -> Any:
    return json.loads((home / "settings.json").read_text(encoding="utf-8"))


def approve(repo: Path, name: str) -> None:
    """Approve the repository's server exactly as configured, as `levelcode mcp trust` would."""
    spec = load_mcp_config(repo).server(name)
    assert spec is not None
    TrustStore().approve(repo, spec, launch_text(spec))


def approve_launch(workspace: Path, name: str, command: str, *args: str) -> None:
    """Approve some launch under `name`: a stale one, when it is not what is configured."""
    spec = StdioServerSpec(name, command, Provenance("workspace", str(workspace / ".mcp.json")), args=args)
    TrustStore().approve(workspace, spec, launch_text(spec))


def trust_file(home: Path) -> Path:
    return home / "state" / "trust.json"


# --- never a repository's file -----------------------------------------------------------------

EVERY_COMMAND = [
    ["add", "mine", "--", "srv", "-x"],
    ["add", "repo", "--", "srv"],  # a user server shadowing the repo's: written to settings.json
    ["add", "repo", "--replace", "--url", "https://a.example/mcp"],
    ["add", "deep", "--json", '{"command": "x"}'],
    ["add", "bad", "--json", '{"command": ""}'],
    ["get", "repo"],
    ["get", "deep", "--json"],
    ["get", "nope"],
    ["disable", "repo"],
    ["enable", "repo"],
    ["remove", "repo"],
    ["disable", "deep"],
    ["enable", "deep"],
    ["remove", "deep"],
    ["remove", "mine"],
    ["remove", "evil"],
    ["revoke", "deep"],
    ["revoke", "repo"],
    ["revoke", "--all"],
    ["revoke", "never-heard-of"],
]


def test_no_command_ever_writes_a_repository_file(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    approve(repo, "deep")
    approve(repo, "repo")
    before = snapshot(repo)
    for args in EVERY_COMMAND:
        for place in (["-C", str(repo)], []):
            done = run_cli([*place, "mcp", *args], isolated_home, cwd=repo)
            assert done.returncode in (0, 1, 2), (args, done.stderr)
            assert "Traceback" not in done.stderr, (args, done.stderr)
            assert snapshot(repo) == before, args
    # The second corpus: the same commands did write where they may.
    assert "mcpServers" in settings(isolated_home)
    assert TrustStore().approved_servers(repo) == {}


@pytest.mark.parametrize("action", ["remove", "disable"])
def test_a_repository_server_is_explained_not_edited(
    isolated_home: Path, tmp_path: Path, action: str
) -> None:
    repo = make_repo(tmp_path)
    never = mcp(isolated_home, repo, action, "deep")
    approve(repo, "deep")
    approved = mcp(isolated_home, repo, action, "deep")
    for done in (never, approved):
        assert done.returncode == 1
        assert f"'deep' comes from {repo / '.levelcode' / 'mcp.json'}, a repository's file." in done.stderr
        assert "Nothing was changed: of a repository's files, LevelCode edits only .mcp.json" in done.stderr
    assert "now: never approved." in never.stderr
    assert "do not approve it" in never.stderr
    assert "now: approved." in approved.stderr
    assert "forget the approval: levelcode mcp revoke deep" in approved.stderr
    if action == "remove":
        assert f"edit {repo / '.levelcode' / 'mcp.json'} yourself" in never.stderr
    assert not (isolated_home / "settings.json").exists()


def test_enable_of_a_repository_server_points_at_approval(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    never = mcp(isolated_home, repo, "enable", "repo")
    assert never.returncode == 1
    assert "Review and approve it with: levelcode mcp trust repo" in never.stderr
    approve(repo, "repo")
    done = mcp(isolated_home, repo, "enable", "repo")
    assert done.returncode == 0
    assert "is approved in" in done.stdout


# --- nothing expanded, nothing run -------------------------------------------------------------


def test_a_command_line_typed_as_one_string_is_never_seen_by_a_shell(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    marker = tmp_path / "ran"
    line = f"srv $(touch {marker}) `touch {marker}` a;touch {marker} *.py ~ ${{HOME}} $HOME 'x y'"
    done = mcp(isolated_home, repo, "add", "lit", "--", line, HOME=str(tmp_path))
    assert done.returncode == 0, done.stderr
    entry = settings(isolated_home)["mcpServers"]["lit"]
    assert [entry["command"], *entry["args"]] == [
        "srv",
        "$(touch",
        f"{marker})",
        "`touch",
        f"{marker}`",
        "a;touch",
        str(marker),
        "*.py",
        "~",
        "${HOME}",
        "$HOME",
        "x y",
    ]
    assert not marker.exists()
    words = ["srv", f"$(touch {marker})", "*.py", "~/x", "${HOME}", "a;b", "`id`"]
    many = mcp(isolated_home, repo, "add", "words", "--", *words)
    assert many.returncode == 0, many.stderr
    stored = settings(isolated_home)["mcpServers"]["words"]
    assert [stored["command"], *stored["args"]] == words
    assert not marker.exists()


def test_quotes_in_a_one_string_command_line_are_honoured(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    done = mcp(isolated_home, repo, "add", "fs", "--", "npx -y pkg '/Users/me/My Documents'")
    assert done.returncode == 0, done.stderr
    assert settings(isolated_home)["mcpServers"]["fs"] == {
        "command": "npx",
        "args": ["-y", "pkg", "/Users/me/My Documents"],
    }
    assert "  runs:    npx -y pkg '/Users/me/My Documents'" in done.stdout


def test_an_existing_program_path_with_spaces_stays_whole(isolated_home: Path, tmp_path: Path) -> None:
    program = tmp_path / "My Server" / "run"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    done = run_cli(["mcp", "add", "p", "--", str(program)], isolated_home, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert settings(isolated_home)["mcpServers"]["p"] == {"command": str(program)}


def test_env_and_headers_are_stored_as_written_never_expanded(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    secret = {"GITHUB_TOKEN": "ghp_real_secret", "API": "api_real_secret"}
    stdio = mcp(
        isolated_home,
        repo,
        "add",
        "gh",
        "-e",
        "GITHUB_TOKEN=${GITHUB_TOKEN}",
        "-e",
        "RUN=$(id)",
        "-e",
        "DEF=${MODE:-fast}",
        "--",
        "github-mcp-server",
        "stdio",
        **secret,
    )
    http = mcp(
        isolated_home,
        repo,
        "add",
        "api",
        "--url",
        "https://a.example/mcp",
        "--header",
        "Authorization: Bearer ${API}",
        **secret,
    )
    raw = mcp(
        isolated_home, repo, "add", "raw", "--json", '{"command": "s", "env": {"T": "${API}"}}', **secret
    )
    for done in (stdio, http, raw):
        assert done.returncode == 0, done.stderr
        assert "real_secret" not in done.stdout + done.stderr
    text = (isolated_home / "settings.json").read_text(encoding="utf-8")
    assert "real_secret" not in text
    servers = settings(isolated_home)["mcpServers"]
    assert servers["gh"]["env"] == {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "RUN": "$(id)", "DEF": "${MODE:-fast}"}
    assert servers["api"]["headers"] == {"Authorization": "Bearer ${API}"}
    assert servers["raw"]["env"] == {"T": "${API}"}
    assert "  env:     GITHUB_TOKEN=${GITHUB_TOKEN}" in stdio.stdout


# --- the rest of settings.json is kept ---------------------------------------------------------

RICH_SETTINGS: dict[str, Any] = {
    "model": "claude-sonnet-5-5",
    "provider": "anthropic",
    "zeta": {"nested": [1, 2.5, None, True, {"ü": "ñ ✓"}]},
    "mcpToolPolicy": {"fs__read": "allow", "*": "ask"},
    "mcpServers": {
        "first": {"command": "a", "futureKey": {"kept": True}},
        "fs": {"command": "npx", "args": ["-y", "pkg"]},
        "broken": "not an object",
    },
    "allowedDirectories": ["/data"],
    "alpha": "last",
}


def test_every_edit_keeps_every_other_key_order_and_mode(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    path = write_settings(isolated_home, RICH_SETTINGS)
    path.chmod(0o640)
    steps: list[tuple[list[str], dict[str, Any] | None]] = [
        (["add", "new", "--", "srv"], {"command": "srv"}),
        (["disable", "fs"], {"command": "npx", "args": ["-y", "pkg"], "disabled": True}),
        (["enable", "fs"], {"command": "npx", "args": ["-y", "pkg"]}),
        (["add", "fs", "--replace", "--", "other"], {"command": "other"}),
        (["remove", "fs"], None),
    ]
    for args, expected in steps:
        done = mcp(isolated_home, repo, *args)
        assert done.returncode == 0, (args, done.stderr)
        doc = settings(isolated_home)
        assert list(doc) == list(RICH_SETTINGS), args
        assert {k: v for k, v in doc.items() if k != "mcpServers"} == {
            k: v for k, v in RICH_SETTINGS.items() if k != "mcpServers"
        }
        servers = doc["mcpServers"]
        assert servers["first"] == RICH_SETTINGS["mcpServers"]["first"]
        assert servers["broken"] == "not an object"
        name = "new" if args[1] == "new" else "fs"
        assert servers.get(name) == expected, args
        assert path.stat().st_mode & 0o777 == 0o640
    assert list(settings(isolated_home)["mcpServers"]) == ["first", "broken", "new"]


def test_nothing_changes_when_there_is_nothing_to_change(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    path = isolated_home / "settings.json"
    path.write_text('{"mcpServers": {"fs": {"command": "x", "disabled": true}}}', encoding="utf-8")
    before = path.read_bytes()
    done = mcp(isolated_home, repo, "disable", "fs")
    assert (done.returncode, done.stdout) == (0, f"'fs' is already disabled in {path}; nothing changed.\n")
    for args in (["remove", "nope"], ["enable", "nope"], ["add", "fs", "--", "y"]):
        assert mcp(isolated_home, repo, *args).returncode in (1, 2)
    assert path.read_bytes() == before


NOT_PARSABLE = {
    "trailing comma": b'{"mcpServers": {"fs": {"command": "x"}},}',
    "comment": b'// mine\n{"mcpServers": {"fs": {"command": "x"}}}',
    "truncated": b'{"model": "m", "mcpServers": {',
    "garbage bytes": b"\xff\xfe\x00\x80",
    "a list": b'[{"mcpServers": {}}]',
    "a string": b'"settings"',
}


@pytest.mark.parametrize("content", NOT_PARSABLE.values(), ids=NOT_PARSABLE.keys())
def test_an_unparsable_settings_file_is_never_overwritten(
    isolated_home: Path, tmp_path: Path, content: bytes
) -> None:
    repo = make_repo(tmp_path)
    path = isolated_home / "settings.json"
    path.write_bytes(content)
    for args in (
        ["add", "fs", "--replace", "--", "x"],
        ["remove", "fs"],
        ["disable", "fs"],
        ["enable", "fs"],
    ):
        done = mcp(isolated_home, repo, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert str(path) in done.stderr
        assert "fix it first (LevelCode does not overwrite a file it cannot read)" in done.stderr
        assert path.read_bytes() == content
    names = sorted(p.name for p in isolated_home.iterdir())
    assert names == ["settings.json", "settings.json.lock"]


@pytest.mark.parametrize("content", [None, b"", b"  \n", b"null", b"{}"])
def test_a_missing_or_empty_settings_file_is_simply_started(
    isolated_home: Path, tmp_path: Path, content: bytes | None
) -> None:
    path = isolated_home / "settings.json"
    if content is not None:
        path.write_bytes(content)
    done = run_cli(["mcp", "add", "fs", "--", "x"], isolated_home, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert settings(isolated_home) == {"mcpServers": {"fs": {"command": "x"}}}
    if content is None:  # created owner-only; an existing file keeps the mode it had
        assert path.stat().st_mode & 0o777 == 0o600


# --- add: refused input, clear errors -----------------------------------------------------------

REFUSED_ADDS = {
    "-e without =": (["-e", "TOKEN", "--", "srv"], "-e 'TOKEN': expected KEY=VALUE"),
    "-e empty key": (["-e", "=v", "--", "srv"], "expected KEY=VALUE"),
    "-e twice": (["-e", "A=1", "-e", "A=2", "--", "srv"], "given twice"),
    "header without colon": (["--url", "https://a.example", "--header", "X"], "expected 'Key: Value'"),
    "bad url": (["--url", "a.example/mcp"], "mcpServers.s.url: must be an http:// or https:// URL"),
    "zero timeout": (["--timeout", "0", "--", "srv"], "mcpServers.s.timeout: must be a positive number"),
    "nan timeout": (["--startup-timeout", "nan", "--", "srv"], "mcpServers.s.startupTimeout"),
    "word timeout": (["--timeout", "soon", "--", "srv"], "expected a number of seconds"),
    "empty cwd": (["--cwd", "", "--", "srv"], "mcpServers.s.cwd: must be a non-empty string"),
    "json not json": (["--json", "{command: x}"], "--json is not valid JSON"),
    "json a list": (["--json", '["npx"]'], "--json must be one server entry"),
    "json unknown key": (["--json", '{"command": "x", "comand": "y"}'], "mcpServers.s.comand: unknown key"),
    "json env number": (["--json", '{"command": "x", "env": {"P": 1}}'], "mcpServers.s.env: must be"),
    "json both": (["--json", '{"command": "x", "url": "https://a.example"}'], "has both"),
    "json type list": (["--json", '{"type": [], "command": "x"}'], "mcpServers.s.type"),
    "json plus -e": (["-e", "A=b", "--json", '{"command": "x"}'], "--json takes the whole entry"),
    "url plus -e": (["-e", "A=b", "--url", "https://a.example"], "-e and --cwd are for stdio servers"),
    "nothing": ([], "give exactly one of"),
    "unquoted line": (["-e", "A=b", "srv", "-y"], "put the server's command after --"),
    "unclosed quote": (["--", "srv 'a b"], "check the quotes"),
}


@pytest.mark.parametrize(("args", "message"), REFUSED_ADDS.values(), ids=REFUSED_ADDS.keys())
def test_bad_add_input_is_refused_and_nothing_written(
    isolated_home: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    path = write_settings(isolated_home, {"model": "m"})
    before = path.read_bytes()
    done = run_cli(["mcp", "add", "s", *args], isolated_home, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr
    assert done.stderr.startswith("levelcode: ")
    assert "Traceback" not in done.stderr
    assert path.read_bytes() == before


ACCEPTED_ADDS = {
    "empty env value": (["s", "-e", "EMPTY=", "--", "srv"], {"command": "srv", "env": {"EMPTY": ""}}),
    "= in value": (["s", "-e", "A=b=c", "--", "srv"], {"command": "srv", "env": {"A": "b=c"}}),
    "options before the name": (
        ["-e", "A=1", "--timeout", "5", "s", "-e", "B=2", "--", "srv"],
        {"command": "srv", "env": {"A": "1", "B": "2"}, "timeout": 5},
    ),
    "server args look like ours": (
        ["s", "--", "srv", "--url", "x", "-e", "y", "--", "--json"],
        {"command": "srv", "args": ["--url", "x", "-e", "y", "--", "--json"]},
    ),
    "no -- before a plain command": (["s", "srv", "-y"], {"command": "srv", "args": ["-y"]}),
    "cwd and timeouts": (
        ["s", "--cwd", "~/srv", "--startup-timeout", "2.5", "--", "srv"],
        {"command": "srv", "cwd": "~/srv", "startupTimeout": 2.5},
    ),
    "http": (
        ["s", "--url", "https://a.example/mcp", "--header", "X-Key:  v"],
        {"url": "https://a.example/mcp", "headers": {"X-Key": "v"}},
    ),
    "json": (["s", "--json", '{"type": "stdio", "command": "x"}'], {"type": "stdio", "command": "x"}),
}


@pytest.mark.parametrize(("args", "entry"), ACCEPTED_ADDS.values(), ids=ACCEPTED_ADDS.keys())
def test_good_add_input_is_stored_as_given(
    isolated_home: Path, tmp_path: Path, args: list[str], entry: dict[str, Any]
) -> None:
    done = run_cli(["mcp", "add", *args], isolated_home, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert settings(isolated_home)["mcpServers"]["s"] == entry


def test_add_says_what_where_and_that_it_starts_without_approval(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    done = mcp(isolated_home, repo, "add", "repo", "-e", "A=${A}", "--timeout", "60", "--", "srv", "a b")
    assert done.returncode == 0, done.stderr
    path = isolated_home / "settings.json"
    assert done.stdout.splitlines() == [
        f"Added MCP server 'repo' in {path}",
        "  scope:   user — yours, every workspace (the default; Claude Code's is local: -s local for "
        "this workspace only)",
        "  runs:    srv 'a b'",
        "  env:     A=${A}",
        "  timeout: 60 s",
        "It is your own server: LevelCode starts it without asking for approval, in every workspace,",
        "from your next session on. See it with: levelcode mcp get repo",
        "It starts in its own empty directory, not in the workspace; if it needs the project,",
        "add it with --cwd . (relative to the workspace) or ${workspaceFolder} in its arguments.",
        f"note: {repo / '.mcp.json'} also names a server 'repo'; yours is the one that runs there.",
    ]
    again = mcp(isolated_home, repo, "add", "repo", "--", "other")
    assert again.returncode == 1
    assert "already a server named 'repo' in your settings" in again.stderr
    assert "--replace" in again.stderr
    replaced = mcp(isolated_home, repo, "add", "repo", "--replace", "--", "other")
    assert replaced.stdout.startswith(f"Replaced MCP server 'repo' in {path}\n")
    assert "\x1b" not in done.stdout + replaced.stdout


def test_add_help_shows_every_form(isolated_home: Path) -> None:
    for argv in (["mcp", "add", "--help"], ["mcp", "add", "s", "--help"]):
        done = run_cli(argv, isolated_home, cwd=isolated_home)
        assert done.returncode == 0
        assert "-- COMMAND [ARGS...]" in done.stdout
        assert "--url URL" in done.stdout
        assert "--json ENTRY" in done.stdout
    assert not (isolated_home / "settings.json").exists()


# --- get ---------------------------------------------------------------------------------------


def test_get_shows_a_user_server(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    entry = {"command": "npx", "args": ["-y", "pkg"], "env": {"T": "${T}"}, "disabled": True}
    path = write_settings(isolated_home, {"mcpServers": {"fs": entry}})
    done = mcp(isolated_home, repo, "get", "fs")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:5] == [
        f"fs · user · {path} (your settings)",
        "  runs:    npx -y pkg",
        "  state:   disabled (enable with: levelcode mcp enable fs)",
        "  trust:   your own server: starts without asking for approval",
        '  sandbox: unconfined (your own server; add "sandbox" to its entry to confine it)',
    ]
    assert lines[5].startswith("  fingerprint: ")
    assert json.loads("\n".join(lines[7:])) == entry
    info = json.loads(mcp(isolated_home, repo, "get", "fs", "--json").stdout)
    assert {k: info[k] for k in ("name", "tier", "file", "launch", "trust", "entry")} == {
        "name": "fs",
        "tier": "user",
        "file": str(path),
        "launch": "npx -y pkg",
        "trust": None,
        "entry": entry,
    }


def test_get_says_a_repository_servers_trust_in_words(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    file = repo / ".mcp.json"
    states = {}
    for step in ("never", "approved", "changed"):
        if step == "approved":
            approve(repo, "repo")
        if step == "changed":
            approve_launch(repo, "repo", "touch", "/tmp/something-else")
        states[step] = mcp(isolated_home, repo, "get", "repo")
        assert states[step].returncode == 0
        assert states[step].stdout.startswith(
            f"repo · workspace · {file} (written by the repository, not by you)\n"
            "  runs:    touch /tmp/levelcode-repo-marker\n"
        )
    assert f"  trust:   never approved (workspace {repo})" in states["never"].stdout
    assert "  next:    review and approve it: levelcode mcp trust repo" in states["never"].stdout
    assert f"  trust:   approved (workspace {repo})" in states["approved"].stdout
    assert "levelcode mcp revoke repo" in states["approved"].stdout
    changed = states["changed"].stdout
    assert f"  trust:   approved, then the command changed (workspace {repo})" in changed
    assert "  approved was: touch /tmp/something-else" in changed
    info = json.loads(mcp(isolated_home, repo, "get", "repo", "--json").stdout)
    assert (info["trust"], info["trustText"]) == ("changed", "approved, then the command changed")
    assert info["entry"] == REPO_MCP["mcpServers"]["repo"]


def test_get_of_an_unknown_name_lists_the_configured_ones(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    write_settings(isolated_home, {"mcpServers": {"fs": {"command": "x"}, "bad": {"command": ""}}})
    done = mcp(isolated_home, repo, "get", "nope")
    assert done.returncode == 2
    assert done.stderr == "levelcode: no MCP server named 'nope' (configured: fs, deep, repo)\n"
    broken = mcp(isolated_home, repo, "get", "bad")
    assert broken.returncode == 1
    assert "'bad' is configured but not loaded:" in broken.stderr
    assert "mcpServers.bad.command: must be a non-empty string" in broken.stderr


def test_get_tells_of_a_stale_approval_and_how_to_forget_it(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    approve_launch(repo, "gone", "old-server", "--port", "1")
    done = mcp(isolated_home, repo, "get", "gone")
    assert done.returncode == 2
    assert done.stderr.splitlines()[1:] == [
        f"A stale approval for 'gone' is stored for {repo} (approved: old-server --port 1);",
        "forget it with: levelcode mcp revoke gone",
    ]
    info = json.loads(mcp(isolated_home, repo, "get", "gone", "--json").stdout)
    assert info["configured"] is False
    assert info["staleApproval"] == {"workspace": str(repo), "launch": "old-server --port 1"}


# --- remove, enable, disable of your own servers -----------------------------------------------


def test_remove_disable_enable_a_user_server(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    path = write_settings(
        isolated_home,
        {"mcpServers": {"fs": {"command": "npx", "args": ["a b"]}}, "mcpToolPolicy": {"fs__read": "allow"}},
    )
    disabled = mcp(isolated_home, repo, "disable", "fs")
    assert disabled.stdout.startswith(f"Disabled MCP server 'fs' in {path} (\"disabled\": true)")
    assert settings(isolated_home)["mcpServers"]["fs"]["disabled"] is True
    enabled = mcp(isolated_home, repo, "enable", "fs")
    assert enabled.stdout.startswith(f"Enabled MCP server 'fs' in {path}")
    assert "disabled" not in settings(isolated_home)["mcpServers"]["fs"]
    removed = mcp(isolated_home, repo, "remove", "fs")
    assert removed.returncode == 0
    assert removed.stdout.splitlines() == [
        f"Removed MCP server 'fs' from {path}",
        "  it ran: npx 'a b'",
        f"mcpToolPolicy still lists fs__read; edit {path} if you no longer want that.",
    ]
    assert settings(isolated_home) == {"mcpServers": {}, "mcpToolPolicy": {"fs__read": "allow"}}
    gone = mcp(isolated_home, repo, "remove", "fs")
    assert (gone.returncode, gone.stderr) == (
        2,
        "levelcode: no MCP server named 'fs' (configured: deep, repo)\n",
    )


def test_removing_a_user_server_that_shadowed_a_repository_one_says_so(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    write_settings(isolated_home, {"mcpServers": {"repo": {"command": "mine"}}})
    done = mcp(isolated_home, repo, "remove", "repo", "-s", "user")  # in two scopes: say which
    assert done.returncode == 0
    assert f"note: {repo / '.mcp.json'} also names 'repo'; it starts there only if you approve it." in (
        done.stdout
    )


def test_remove_takes_the_one_scope_that_has_the_name_and_lists_several(
    isolated_home: Path, tmp_path: Path
) -> None:
    """As Claude Code's `mcp remove NAME`: from the only scope that has it (the repository's
    .mcp.json too, without -s project); in several, nothing is removed, each scope is listed with
    the command that removes it there, and the exit status is 1."""
    repo = make_repo(tmp_path)
    project = repo / ".mcp.json"
    only_project = mcp(isolated_home, repo, "remove", "repo")
    assert only_project.returncode == 0, only_project.stderr
    assert only_project.stdout.startswith(f"Removed MCP server 'repo' from {project}\n")
    assert json.loads(project.read_text()) == {"mcpServers": {}}
    project.write_text(json.dumps(REPO_MCP, indent=1), encoding="utf-8")
    for scope in ("user", "local"):
        assert mcp(isolated_home, repo, "add", "-s", scope, "repo", "--", f"mine-{scope}").returncode == 0
    (local,) = (isolated_home / "local-servers").glob("*.json")
    files = [project, local, isolated_home / "settings.json"]
    before = [path.read_bytes() for path in files]
    several = mcp(isolated_home, repo, "remove", "repo")
    assert several.returncode == 1
    assert several.stderr.splitlines() == [
        "levelcode: 'repo' is in more than one scope; nothing was removed:",
        f"  local    {local} (yours, this workspace only)",
        f"  project  {project} (the repository's, shared; asks before it starts)",
        f"  user     {isolated_home / 'settings.json'} (yours, every workspace)",
        "To remove it from one, say which:",
        "  levelcode mcp remove repo -s local",
        "  levelcode mcp remove repo -s project",
        "  levelcode mcp remove repo -s user",
    ]
    assert [path.read_bytes() for path in files] == before
    assert mcp(isolated_home, repo, "remove", "repo", "-s", "local").returncode == 0
    again = mcp(isolated_home, repo, "remove", "repo", "-s", "local")
    assert again.returncode == 1
    assert again.stderr.splitlines() == [
        "levelcode: there is no server named 'repo' in your servers for this workspace",
        f"It is in project ({project}): levelcode mcp remove repo -s project",
        f"It is in user ({isolated_home / 'settings.json'}): levelcode mcp remove repo -s user",
    ]


# --- revoke ------------------------------------------------------------------------------------


def test_revoke_forgets_an_approval_and_is_honest_about_running_sessions(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    approve(repo, "repo")
    approve(repo, "deep")
    done = mcp(isolated_home, repo, "revoke", "repo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"Forgot the approval of 'repo' in {repo} (approved: touch /tmp/levelcode-repo-marker).",
        f"LevelCode will ask before starting repo again in {repo}.",
        f"A LevelCode session already running repo in {repo} keeps it until that session ends or",
        "starts a new chat (/new), which asks again. This command does not stop it.",
    ]
    assert set(TrustStore().approved_servers(repo)) == {"deep"}
    assert mcp(isolated_home, repo, "get", "repo").stdout.count("never approved") == 1


def test_revoking_a_stale_approval_says_it_was_stale(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    approve_launch(repo, "repo", "touch", "/tmp/older-command")
    approve_launch(repo, "gone", "old-server", "--port", "1")
    changed = mcp(isolated_home, repo, "revoke", "repo")
    assert changed.stdout.startswith(
        f"Forgot a stale approval of 'repo' in {repo}: its command changed after you approved it "
        "(approved: touch /tmp/older-command).\n"
        f"LevelCode will ask before starting repo again in {repo}.\n"
    )
    gone = mcp(isolated_home, repo, "revoke", "gone")
    assert gone.stdout.startswith(
        f"Forgot a stale approval of 'gone' in {repo}: it is no longer configured here "
        "(approved: old-server --port 1).\n"
    )
    assert TrustStore().approved_servers(repo) == {}


def test_revoking_what_was_never_approved_writes_nothing(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    write_settings(isolated_home, {"mcpServers": {"mine": {"command": "x"}}})
    for name in ("repo", "nope"):
        done = mcp(isolated_home, repo, "revoke", name)
        assert (done.returncode, done.stdout) == (
            0,
            f"'{name}' was never approved in {repo}; nothing to forget.\n",
        )
    mine = mcp(isolated_home, repo, "revoke", "mine")
    assert mine.returncode == 0
    assert "is your own server" in mine.stdout
    assert "levelcode mcp disable mine" in mine.stdout
    everything = mcp(isolated_home, repo, "revoke", "--all")
    assert everything.stdout == f"No approvals are stored for {repo}; nothing to forget.\n"
    assert not trust_file(isolated_home).exists()
    approve_launch(tmp_path, "other", "x")  # another workspace's approval is not this one's
    before = trust_file(isolated_home).read_bytes()
    assert mcp(isolated_home, repo, "revoke", "other").returncode == 0
    assert trust_file(isolated_home).read_bytes() == before


def test_revoke_all_forgets_this_workspace_only(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    approve(repo, "repo")
    approve_launch(repo, "gone", "x")
    approve_launch(tmp_path, "elsewhere", "y")
    done = mcp(isolated_home, repo, "revoke", "--all")
    assert done.returncode == 0
    assert done.stdout.splitlines()[:4] == [
        f"Forgot 2 approvals in {repo}:",
        "  gone: x  (stale: it is no longer configured here)",
        "  repo: touch /tmp/levelcode-repo-marker",
        f"LevelCode will ask before starting a repository's server again in {repo}.",
    ]
    assert "This command does not stop it." in done.stdout
    assert TrustStore().approved_servers(repo) == {}
    assert set(TrustStore().approved_servers(tmp_path)) == {"elsewhere"}


def test_revoke_needs_a_name_or_all(isolated_home: Path, tmp_path: Path) -> None:
    for args in (["revoke"], ["revoke", "x", "--all"]):
        done = run_cli(["mcp", *args], isolated_home, cwd=tmp_path)
        assert done.returncode == 2
        assert "give a server NAME, or --all" in done.stderr


def test_output_is_plain_text_when_piped(isolated_home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    evil = {"mcpServers": {"x": {"command": "srv", "args": ["\x1b[2Jfake\nline"]}}}
    (repo / ".mcp.json").write_text(json.dumps(evil), encoding="utf-8")
    done = mcp(isolated_home, repo, "get", "x")
    assert done.returncode == 0
    assert "\x1b" not in done.stdout
    assert "\\x1b[2Jfake\\nline" in done.stdout


def test_servers_that_are_not_an_object_are_left_for_the_user_to_fix(isolated_home: Path) -> None:
    path = isolated_home / "settings.json"
    path.write_text('{"model": "m", "mcpServers": ["npx"]}', encoding="utf-8")
    before = path.read_bytes()
    for args in (["add", "fs", "--", "x"], ["remove", "fs"], ["disable", "fs"]):
        done = run_cli(["mcp", *args], isolated_home, cwd=isolated_home)
        assert done.returncode == 1
        assert done.stderr == (
            f'levelcode: {path}: "mcpServers" in your settings is not an object; fix it first\n'
        )
    assert path.read_bytes() == before
