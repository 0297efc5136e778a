"""First contact with real Python servers from PyPI starts each server once (DESIGN D1, the era
probe on one process): today's mcp-server-time and mcp-server-git (dual-era, on the project's
SDK) and the same servers on an old SDK (mcp 1.3), which ignore a request they do not know and
exit with a traceback on the next line. Load-bearing direction: the server's log must show one
start and no traceback; the tool call proves the connection is real.

Each start of a server writes one `--- PID starting` line to its log (stdio/pipe_transport.py), so the
log counts the processes a connection started."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from tests.support.processes import survivors
from tests.support.servers import USER, legacy_sdk_bin, venv_bin


def _git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    (repo / "new.txt").write_text("hello\n")
    return repo


def _spec(server: str, binary: str, tmp_path: Path) -> StdioServerSpec:
    args = ("--local-timezone", "UTC") if server == "time" else ("--repository", str(_git_repo(tmp_path)))
    return StdioServerSpec(server, binary, USER, args=args)


@pytest.mark.parametrize("server", ["time", "git"])
@pytest.mark.parametrize("sdk", ["current", "old"])
async def test_first_contact_starts_a_real_python_server_once(tmp_path: Path, server: str, sdk: str) -> None:
    binary = f"mcp-server-{server}"
    spec = _spec(server, venv_bin(binary) if sdk == "current" else legacy_sdk_bin(binary), tmp_path)
    logs = tmp_path / "logs"
    options = ConnectOptions(workspace=tmp_path, startup_timeout=60, log_dir=logs)
    connection = await connect(spec, options, hint=None)
    try:
        assert connection.info.era == "legacy"
        tool, arguments = (
            ("get_current_time", {"timezone": "UTC"})
            if server == "time"
            else ("git_status", {"repo_path": str(tmp_path / "repo")})
        )
        outcome = await connection.call_tool(tool, arguments)
        assert not outcome.is_error, outcome.text
    finally:
        pid = connection.pid
        await connection.close()
    log = (logs / f"{server}.log").read_text(errors="replace")
    assert log.count(" starting ") == 1, log
    assert "Traceback" not in log
    assert "validation error" not in log
    assert survivors([pid or 0], within=5) == []
