"""What `levelcode run --autopilot` still refuses, end to end: a real `levelcode` process, the real
provider code against a fake provider server, real git. Load-bearing direction: the file a planted
git setting would create (the marker) must never appear, and the protected file must be left as it
was; the positive control shows the planted setting really would run if it got in."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from levelcode.sandbox.probe import sandbox_support
from tests.fakes.fake_openai import tool_messages
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags


def _run_autopilot(home: Path, workspace: Path, steps: list[Reply]) -> tuple[Any, list[str]]:
    """Run one headless autopilot turn; the text of each tool result the model got back, in order."""
    with OPENAI.fake(steps) as server:
        command = [str(LEVELCODE), "run", "-C", str(workspace), "--autopilot"]
        command += [*provider_flags("openai", server.base_url, OPENAI.model), "go"]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=provider_env(home, "openai"),
            timeout=120,
            check=False,
        )
        results = [m["content"] for request in server.requests[1:] for m in tool_messages(request)]
    return done, results


def _git_repository(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    return path


@pytest.mark.parametrize("tool", ["write_file", "edit_file"])
def test_a_planted_fsmonitor_is_refused_and_git_status_runs_nothing(
    isolated_home: Path, tmp_path: Path, tool: str
) -> None:
    workspace = _git_repository(tmp_path / "ws")
    marker = tmp_path / "marker"
    config = workspace / ".git" / "config"
    original = config.read_text()
    planted = f"[core]\n\tfsmonitor = touch {marker}\n"
    arguments: dict[str, object] = (
        {"path": ".git/config", "content": original + planted}
        if tool == "write_file"
        else {"path": ".git/config", "old_string": "[core]\n", "new_string": planted}
    )
    steps = [
        Reply(tool_calls=(ToolCall(tool, arguments),)),
        Reply(tool_calls=(ToolCall("run_command", {"command": "git status"}),)),
        Reply(text="done"),
    ]
    done, results = _run_autopilot(isolated_home, workspace, steps)
    assert done.returncode == 0, done.stderr
    refusal, status = results
    assert refusal.startswith("ERROR: not run: nobody can approve in this session.")
    assert ".git/config and hooks run code" in refusal
    if sandbox_support().available:
        assert "No commits yet" in status  # git status did run, unasked, in the sandbox
    else:  # no sandbox: autopilot asks for every command, so headless refuses it (never unconfined)
        assert "there is no sandbox here" in status
    assert config.read_text() == original
    assert not marker.exists()
    # positive control: had the write gone through, `git status` would have run the planted hook
    config.write_text(original + planted)
    subprocess.run(["git", "status"], cwd=workspace, capture_output=True, check=False, timeout=30)
    assert marker.exists()


def test_a_repository_config_file_is_refused_on_autopilot(isolated_home: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    steps = [
        Reply(tool_calls=(ToolCall("write_file", {"path": ".levelcode/mcp.json", "content": "{}"}),)),
        Reply(tool_calls=(ToolCall("write_file", {"path": "notes.txt", "content": "ok"}),)),
        Reply(text="done"),
    ]
    done, results = _run_autopilot(isolated_home, workspace, steps)
    assert done.returncode == 0, done.stderr
    refusal, created = results
    assert ".levelcode/ holds repository configuration for LevelCode" in refusal
    assert created == "Created notes.txt: 2 bytes, 1 lines."
    assert not (workspace / ".levelcode").exists()
