"""`claude mcp add …` and `levelcode mcp add …` typed with the same words, side by side, against the
real Claude Code (`claude` on PATH, or LEVELCODE_TEST_CLAUDE naming it; skipped without one). Each
runs with a home of its own, in a project folder of its own. Load-bearing direction: every form
Claude Code takes is stored by LevelCode as the same server (command, args, env, url, headers,
transport) in the matching scope — local in a file of the user's, never in the project. The
second corpus: a name in several scopes is removed from none by either, with the same status."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli

CLAUDE = os.environ.get("LEVELCODE_TEST_CLAUDE") or shutil.which("claude")
pytestmark = pytest.mark.skipif(
    CLAUDE is None, reason="Claude Code is not installed (set LEVELCODE_TEST_CLAUDE)"
)

FORMS = {
    "several env entries after one -e": ["add", "db", "-e", "A=1", "B=2", "--", "pg-mcp", "--ro"],
    "several headers after one -H": [
        "add",
        "-t",
        "http",
        "api",
        "https://a.example/mcp",
        "-H",
        "X-A: 1",
        "X-B: 2",
    ],
    "sse": ["add", "--transport", "sse", "old", "https://a.example/sse"],
    "user scope": ["add", "-s", "user", "fs", "--", "npx", "-y", "server-filesystem", "/tmp"],
    "add-json": ["add-json", "time", '{"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}'],
}


def claude(home: Path, project: Path, *words: str) -> subprocess.CompletedProcess[str]:
    assert CLAUDE is not None
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run(
        [CLAUDE, "mcp", *words], capture_output=True, text=True, env=env, cwd=project, timeout=60, check=False
    )


def same_shape(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry without what only says the default: `type` stdio or http, empty `args` and `env`."""
    return {
        key: value
        for key, value in entry.items()
        if not (key == "type" and value in ("stdio", "http")) and value not in ([], {})
    }


def claude_servers(home: Path, project: Path, scope: str) -> dict[str, Any]:
    doc = json.loads((home / ".claude.json").read_text())
    if scope == "local":
        return dict(doc["projects"][str(project)]["mcpServers"])
    return dict(doc.get("mcpServers", {}))


def levelcode_servers(home: Path, scope: str) -> dict[str, Any]:
    files = list((home / "local-servers").glob("*.json")) if scope == "local" else [home / "settings.json"]
    (file,) = files
    return dict(json.loads(file.read_text())["mcpServers"])


@pytest.fixture
def homes(tmp_path: Path) -> tuple[Path, Path, Path]:
    claude_home, project = tmp_path / "claude-home", tmp_path / "project"
    claude_home.mkdir()
    project.mkdir()
    return claude_home, project, tmp_path


@pytest.mark.parametrize("words", FORMS.values(), ids=FORMS.keys())
def test_the_same_words_store_the_same_server(
    isolated_home: Path, homes: tuple[Path, Path, Path], words: list[str]
) -> None:
    claude_home, project, _ = homes
    typed = words[words.index("-s") + 1] if "-s" in words else None
    theirs = claude(claude_home, project, *words)
    ours = run_cli(["mcp", *words], isolated_home, cwd=project)
    assert (theirs.returncode, ours.returncode) == (0, 0), (theirs.stderr, ours.stderr)
    # Without -s each writes its default scope: Claude Code's local, LevelCode's user.
    written = claude_servers(claude_home, project, typed or "local")
    expected = {name: same_shape(entry) for name, entry in written.items()}
    stored = levelcode_servers(isolated_home, typed or "user")
    assert {name: same_shape(entry) for name, entry in stored.items()} == expected
    assert list(project.iterdir()) == []


def test_local_scope_is_this_project_only_in_both(
    isolated_home: Path, homes: tuple[Path, Path, Path]
) -> None:
    claude_home, project, _ = homes
    words = ["add", "-s", "local", "mine", "--", "srv", "--flag"]
    assert claude(claude_home, project, *words).returncode == 0
    assert run_cli(["mcp", *words], isolated_home, cwd=project).returncode == 0
    assert levelcode_servers(isolated_home, "local") == {
        name: same_shape(entry) for name, entry in claude_servers(claude_home, project, "local").items()
    }
    assert not (isolated_home / "settings.json").exists()
    assert list(project.iterdir()) == []


def test_a_name_in_several_scopes_is_removed_from_none_with_the_same_status(
    isolated_home: Path, homes: tuple[Path, Path, Path]
) -> None:
    claude_home, project, _ = homes
    for scope in ("user", "local", "project"):
        claude(claude_home, project, "add", "-s", scope, "twice", "--", f"srv-{scope}")
        run_cli(["mcp", "add", "-s", scope, "twice", "--", f"srv-{scope}"], isolated_home, cwd=project)
    theirs = claude(claude_home, project, "remove", "twice")
    ours = run_cli(["mcp", "remove", "twice"], isolated_home, cwd=project)
    assert theirs.returncode == ours.returncode == 1
    for scope in ("local", "project", "user"):
        assert f"mcp remove twice -s {scope}" in theirs.stdout + theirs.stderr
        assert f"levelcode mcp remove twice -s {scope}" in ours.stderr
    assert "twice" in json.loads((project / ".mcp.json").read_text())["mcpServers"]


def test_import_puts_each_claude_code_scope_where_levelcode_keeps_it(
    isolated_home: Path, homes: tuple[Path, Path, Path]
) -> None:
    """What `claude mcp add` wrote for the user, for this project and for another, imported: the user's
    into the settings, this project's into its local scope, the other project's nowhere."""
    claude_home, project, tmp_path = homes
    other = tmp_path / "other"
    other.mkdir()
    assert (
        claude(claude_home, project, "add", "-s", "user", "mem", "--", "npx", "-y", "mcp-memory").returncode
        == 0
    )
    assert (
        claude(
            claude_home, project, "add", "-s", "local", "db", "-e", "URL=${DB_URL}", "--", "pg-mcp"
        ).returncode
        == 0
    )
    assert (
        claude(
            claude_home, other, "add", "-s", "local", "api", "-t", "http", "https://a.example/mcp"
        ).returncode
        == 0
    )
    done = run_cli(
        ["mcp", "import", "--from", "claude-code", "--yes"],
        isolated_home,
        cwd=project,
        env={"HOME": str(claude_home)},
    )
    assert done.returncode == 0, done.stderr
    for scope in ("user", "local"):
        ours = {name: same_shape(entry) for name, entry in levelcode_servers(isolated_home, scope).items()}
        theirs = claude_servers(claude_home, project, scope)
        assert ours == {name: same_shape(entry) for name, entry in theirs.items()}
    assert "api · from Claude Code" in done.stdout
    assert list(project.iterdir()) == []
