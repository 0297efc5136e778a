"""A reader that leaves early (`levelcode mcp list | head -1`) ends the command quietly, with the
status a shell reports for a program stopped by SIGPIPE (141), and its servers still reaped.
Load-bearing direction: no traceback and no "Exception ignored" on stderr, whichever command and
whichever printer (plain print, rich, JSON lines). Here the reader leaves before anything is
written: the read end of stdout is closed as soon as the process exists, so every first write fails.
The second corpus: the same commands, read to the end, exit as they always did."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, write_settings
from tests.support.servers import FAULT_SERVER

READER_LEFT = 141


def _servers(home: Path, pid_file: Path) -> None:
    server = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER)],
        "env": {"FAULT_PID_FILE": str(pid_file)},
    }
    write_settings(home, {"mcpServers": {"fault": server}, "mcpToolPolicy": {"fault__echo": "allow"}})


def _reader_leaves(argv: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    process = subprocess.Popen(
        [str(LEVELCODE), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # before the interpreter has even started: every write meets a closed pipe
    with process.stderr:
        stderr = process.stderr.read().decode()
    return process.wait(timeout=120), stderr


def _alive(pid_file: Path) -> list[int]:
    pids = [int(line) for line in pid_file.read_text().split()] if pid_file.exists() else []
    alive = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        alive.append(pid)
    return alive


MCP_COMMANDS = {
    "list": ["mcp", "list"],
    "list --json": ["mcp", "list", "--json"],
    "get (starts it)": ["mcp", "get", "fault"],
    "get --no-start": ["mcp", "get", "fault", "--no-start"],
    "call": ["mcp", "call", "fault", "echo", '{"message": "hi"}'],
    "get --json": ["mcp", "get", "fault", "--json"],
}


@pytest.mark.parametrize("argv", MCP_COMMANDS.values(), ids=MCP_COMMANDS.keys())
def test_an_mcp_command_whose_reader_left_ends_quietly(
    isolated_home: Path, tmp_path: Path, argv: list[str]
) -> None:
    pid_file = tmp_path / "pids"
    _servers(isolated_home, pid_file)
    status, stderr = _reader_leaves(["-C", str(tmp_path), *argv], cli_env(isolated_home), tmp_path)
    assert status == READER_LEFT, stderr
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr
    assert "BrokenPipe" not in stderr
    assert _alive(pid_file) == []
    # the second corpus: read to the end, the same command exits as it always did
    done = subprocess.run(
        [str(LEVELCODE), "-C", str(tmp_path), *argv],
        capture_output=True,
        text=True,
        env=cli_env(isolated_home),
        timeout=120,
        check=False,
    )
    assert (done.returncode, bool(done.stdout)) == (0, True), done.stderr


@pytest.mark.parametrize("as_json", [True, False], ids=["--json", "text"])
def test_run_whose_reader_left_ends_quietly(isolated_home: Path, tmp_path: Path, as_json: bool) -> None:
    pid_file = tmp_path / "pids"
    _servers(isolated_home, pid_file)
    steps = [Reply(tool_calls=(ToolCall("fault__echo", {"message": "x"}),)), Reply(text="Done.")]
    with ANTHROPIC.fake(steps) as server:
        argv = [
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("anthropic", server.base_url, ANTHROPIC.model),
            *(["--json"] if as_json else []),
            "echo x",
        ]
        status, stderr = _reader_leaves(argv, provider_env(isolated_home, "anthropic"), tmp_path)
    assert status == READER_LEFT, stderr
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr
    assert _alive(pid_file) == []
