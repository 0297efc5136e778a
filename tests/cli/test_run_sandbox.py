"""`levelcode run` and the sandbox. Load-bearing direction: where there is no sandbox, autopilot
runs no command without a person — headless, every command is refused with the reason — and the
run says so once at start; a repository's settings cannot turn the network on. The second corpus:
with a sandbox, autopilot runs what the check calls safe, confined, without asking; the user's own
setting or --allow-network lets commands reach the network, and --allow-host the host it names
(through the egress filter), no other."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import tool_messages
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.listener import Listener


def _run(home: Path, workspace: Path, calls: list[ToolCall], *args: str, **env: str) -> tuple[Any, list[str]]:
    steps = [Reply(tool_calls=(call,)) for call in calls] + [Reply(text="done")]
    with OPENAI.fake(steps) as server:
        command = [
            str(LEVELCODE),
            "run",
            "-C",
            str(workspace),
            *provider_flags("openai", server.base_url, OPENAI.model),
            "--json",
            *args,
            "go",
        ]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=provider_env(home, "openai", **env),
            timeout=120,
            check=False,
        )
        told = [m["content"] for request in server.requests[1:] for m in tool_messages(request)]
    return done, told


def _notices(done: Any) -> list[str]:
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [e["text"] for e in events if e["type"] == "notice"]


def test_without_a_sandbox_autopilot_refuses_every_command_and_says_so_once(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    calls = [ToolCall("run_command", {"command": f"/usr/bin/touch {marker}"})] * 2
    done, told = _run(isolated_home, tmp_path, calls, "--autopilot", PATH=str(tmp_path / "no-bin"))
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    said = [n for n in _notices(done) if n.startswith("no sandbox for commands")]
    assert said == [
        "no sandbox for commands: bwrap was not found on PATH; install bubblewrap (e.g. `apt-get install "
        "bubblewrap`). Autopilot too asks before every command (a headless run refuses them), and a "
        "command you approve runs unconfined."
    ]
    assert len(told) == 2
    for text in told:
        assert text.startswith(
            "ERROR: not run: nobody can approve in this session, and there is no sandbox here"
        )
        assert "runs unconfined" in text


@pytest.mark.sandbox
def test_autopilot_runs_safe_commands_confined_without_asking(isolated_home: Path, tmp_path: Path) -> None:
    calls = [
        ToolCall("run_command", {"command": "echo cache=$XDG_CACHE_HOME; grep NoNewPrivs /proc/self/status"})
    ]
    done, told = _run(isolated_home, tmp_path, calls, "--autopilot")
    assert done.returncode == 0, done.stderr
    cache = isolated_home / "state" / "sandbox" / "cache"
    assert told[0].startswith(f"cache={cache}/")  # the sandbox's cache folder: it ran confined
    assert "NoNewPrivs:\t1" in told[0]
    assert not [n for n in _notices(done) if "sandbox" in n]


def _curl(listener: Listener) -> list[ToolCall]:
    # A plain GET: the command check lets it pass (an upload would be flagged), so only the sandbox
    # decides whether it goes out.
    return [ToolCall("run_command", {"command": f"curl -sS -m 5 {listener.url}reached"})]


@pytest.mark.sandbox
def test_the_network_is_off_and_a_repository_cannot_turn_it_on(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / ".levelcode").mkdir()
    (tmp_path / ".levelcode" / "settings.json").write_text(json.dumps({"sandbox": {"network": True}}))
    with Listener() as listener:
        done, told = _run(isolated_home, tmp_path, _curl(listener), "--autopilot")
        assert listener.received() == b""
    assert "[sandbox] the network is off" in told[0]
    assert any(
        "settings.json: sandbox: ignored: only your user settings may set this" in n for n in _notices(done)
    )


@pytest.mark.sandbox
@pytest.mark.parametrize("how", ["flag", "setting"])
def test_the_user_can_allow_the_network(isolated_home: Path, tmp_path: Path, how: str) -> None:
    args = ["--autopilot"]
    if how == "flag":
        args.append("--allow-network")
    else:
        write_settings(isolated_home, {"sandbox": {"network": True}})
    with Listener() as listener:
        done, told = _run(isolated_home, tmp_path, _curl(listener), *args)
        assert b"GET /reached" in listener.received(), told
    assert done.returncode == 0, done.stderr


@pytest.mark.sandbox
def test_allow_host_lets_a_run_reach_that_host_and_no_other(isolated_home: Path, tmp_path: Path) -> None:
    with Listener() as listed, Listener() as other:
        calls = [*_curl(listed), *_curl(other)]
        done, told = _run(
            isolated_home, tmp_path, calls, "--autopilot", "--allow-host", f"127.0.0.1:{listed.port}"
        )
        assert b"GET /reached" in listed.received(), told
        assert other.received() == b""
    assert done.returncode == 0, done.stderr
    assert f"[sandbox] refused a connection to 127.0.0.1:{other.port}: not on the network list" in told[1]
    assert f"run with --allow-host 127.0.0.1:{other.port}" in told[1]
