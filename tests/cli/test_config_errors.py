"""A configuration file that cannot be used is said first, in one line naming the file, line and
column, by every command (real processes, an isolated LEVELCODE_HOME). Load-bearing direction:
nothing a command prints comes before that line (no "Add one with…", no "no server named…"),
and a session never runs without the user's settings: `run` and the REPL stop with status 2.
The second corpus: a broken repository file stops nothing: its servers are left out, the user's
own servers and the task go on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli, write_settings
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal

BROKEN_SETTINGS = (
    '{\n  "model": "m",\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {"command": "y"}\n  }\n}\n'
)
BROKEN_AT = "5:5: not valid JSON: expected ','"


def _broken_settings(home: Path) -> Path:
    path = home / "settings.json"
    path.write_text(BROKEN_SETTINGS, encoding="utf-8")
    return path


def _first_line(stderr: str) -> str:
    return stderr.splitlines()[0] if stderr else ""


MCP_ACTIONS = [
    (["mcp", "list"], 1),
    (["mcp", "list", "--json"], 1),
    (["mcp", "get", "a"], 2),
    (["mcp", "get", "a", "--json"], 2),
    (["mcp", "call", "a", "t"], 2),
    (["mcp", "resources", "a"], 2),
    (["mcp", "read", "a", "x://y"], 2),
    (["mcp", "prompts", "a"], 2),
    (["mcp", "prompt", "a", "p"], 2),
    (["mcp", "trust", "a"], 2),
    (["mcp", "login", "a"], 2),
    (["mcp", "revoke", "a"], 0),
    (["mcp", "add", "c", "--", "x"], 1),
    (["mcp", "add", "--transport", "http", "c", "https://a.example"], 1),
    (["mcp", "add-json", "c", '{"command": "x"}'], 1),
    (["mcp", "remove", "a"], 1),
    (["mcp", "enable", "a"], 1),
    (["mcp", "disable", "a"], 1),
    (["mcp", "import", "--yes"], 1),
]


@pytest.mark.parametrize(("argv", "status"), MCP_ACTIONS, ids=[" ".join(a) for a, _ in MCP_ACTIONS])
def test_every_mcp_action_names_the_broken_settings_file_first(
    isolated_home: Path, tmp_path: Path, argv: list[str], status: int
) -> None:
    path = _broken_settings(isolated_home)
    done = run_cli(["-C", str(tmp_path), *argv], isolated_home, cwd=tmp_path)
    assert _first_line(done.stderr).startswith(f"levelcode: {path}:{BROKEN_AT}"), done.stderr
    assert done.stderr.count(f"{path}:{BROKEN_AT}") == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "Add one with" not in done.stdout + done.stderr
    assert done.returncode == status, done.stderr
    assert path.read_text(encoding="utf-8") == BROKEN_SETTINGS


def test_mcp_list_with_only_a_broken_file_says_so_and_no_how_to_add(
    isolated_home: Path, tmp_path: Path
) -> None:
    path = _broken_settings(isolated_home)
    done = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert done.returncode == 1
    assert done.stderr == f"levelcode: {path}:{BROKEN_AT}\n"
    assert done.stdout == f"No MCP servers listed: {path} could not be read.\n"
    doc = json.loads(run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home).stdout)
    assert doc["problems"] == [f"{path}:{BROKEN_AT}"]


def test_a_server_not_found_names_the_file_that_may_hold_it(isolated_home: Path, tmp_path: Path) -> None:
    path = _broken_settings(isolated_home)
    for argv in (["mcp", "get", "a"], ["mcp", "call", "a", "t"]):
        done = run_cli(["-C", str(tmp_path), *argv], isolated_home)
        assert done.stderr.splitlines() == [
            f"levelcode: {path}:{BROKEN_AT}",
            "levelcode: no MCP server named 'a' (configured: none)",
            f"It may be in {path}, which could not be read (see above).",
        ]


def test_run_stops_on_the_users_broken_settings_before_anything_starts(
    isolated_home: Path, tmp_path: Path
) -> None:
    path = _broken_settings(isolated_home)
    with ANTHROPIC.fake([Reply(text="never asked")]) as server:
        done = subprocess.run(
            [
                str(LEVELCODE),
                "run",
                "-C",
                str(tmp_path),
                *provider_flags("anthropic", server.base_url, ANTHROPIC.model),
                "hi",
            ],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "anthropic"),
            timeout=60,
            check=False,
        )
        assert server.requests == []
    assert done.returncode == 2
    assert done.stderr == f"levelcode: {path}:{BROKEN_AT} (your settings; fix it, then start again)\n"
    assert done.stdout == ""


def test_the_repl_stops_on_the_users_broken_settings(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    path = _broken_settings(isolated_home)
    env = provider_env(isolated_home, "anthropic", TERM="xterm-256color")
    terminal.start([str(LEVELCODE)], env, cwd=str(tmp_path))
    screen = terminal.wait_for("[exited 2]")
    lines = [line for line in screen.splitlines() if line.strip()]
    assert lines[0] == f"levelcode: {path}:{BROKEN_AT} (your settings; fix it, then start again)"


def test_a_broken_repository_file_is_said_first_and_the_rest_goes_on(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The second corpus: the user's own server still works, and so does the task."""
    write_settings(
        isolated_home,
        {
            "mcpServers": {"fault": {"command": sys.executable, "args": [str(FAULT_SERVER)]}},
            "mcpToolPolicy": {"fault__echo": "allow"},
        },
    )
    repo_file = tmp_path / ".mcp.json"
    repo_file.write_text('{"mcpServers": {"repo": {"command": "touch", "args": ["x"]},}}', encoding="utf-8")
    steps = [Reply(tool_calls=(ToolCall("fault__echo", {"message": "still here"}),)), Reply(text="Done.")]
    with ANTHROPIC.fake(steps) as server:
        done = subprocess.run(
            [
                str(LEVELCODE),
                "run",
                "-C",
                str(tmp_path),
                *provider_flags("anthropic", server.base_url, ANTHROPIC.model),
                "echo something",
            ],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "anthropic"),
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    trailing = "not valid JSON: a comma before '}'; JSON allows no trailing comma"
    assert _first_line(done.stderr) == f"config problem: {repo_file}:1:60: {trailing}"
    assert "still here" in ANTHROPIC.result_texts(server.requests[1])[0]
    assert "Done." in done.stdout
    listed = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert listed.returncode == 1
    assert _first_line(listed.stderr) == f"levelcode: {repo_file}:1:60: {trailing}"
    assert "fault · running" in listed.stdout
