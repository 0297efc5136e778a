"""LevelCode's private files — spill files (state/results/*), MCP server logs (state/logs/*.log and
the rotated .1), the debug log, the REPL history and the protocol memory — are created 0600, and
the folders LevelCode owns (state/, logs/, results/) are 0700, also when they already existed with
a looser mode. Each is created here through the code path that creates it for real.

Load-bearing direction: a private file or folder that another user of the machine can read is the
failure that matters. Every test runs under umask 022, the common default, so a missing mode
argument shows as 0644 / 0755. A file that already exists keeps its mode: its 0700 folder is what
keeps others out of it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from levelcode.mcp.live.protocol_memory import ProtocolMemory
from levelcode.mcp.stdio.pipe_transport import MAX_LOG_BYTES
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.servers import FAULT_SERVER, fault_spec
from tests.support.terminal import Terminal


@pytest.fixture(autouse=True)
def common_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _loosen(*folders: Path) -> None:
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o777)


@pytest.mark.parametrize("folders", ["new", "already there, 0777"])
def test_a_run_creates_its_spill_log_debug_log_and_protocol_memory_privately(
    isolated_home: Path, tmp_path: Path, folders: str
) -> None:
    state = isolated_home / "state"
    if folders != "new":
        _loosen(state, state / "logs", state / "results")
    server = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER)],
        "env": {"FAULT_PID_FILE": str(tmp_path / "p")},
    }
    write_settings(
        isolated_home, {"mcpServers": {"fault": server}, "mcpToolPolicy": {"fault__huge_text": "allow"}}
    )
    steps = [Reply(tool_calls=(ToolCall("fault__huge_text", {}),)), Reply(text="done")]
    with OPENAI.fake(steps) as provider:
        command = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", provider.base_url, OPENAI.model),
        ]
        env = provider_env(isolated_home, "openai", LEVELCODE_DEBUG="1")
        done = subprocess.run(
            [*command, "go"], capture_output=True, text=True, env=env, timeout=120, check=False
        )
    assert done.returncode == 0, done.stderr
    spills = list((state / "results").iterdir())
    assert len(spills) == 1, "the 130,000-character result should have been cut and spilled"
    files = [*spills, state / "logs" / "fault.log", state / "logs" / "debug.log", state / "protocols.json"]
    assert {str(path.relative_to(state)): oct(mode(path)) for path in files} == {
        str(path.relative_to(state)): "0o600" for path in files
    }
    for folder in (state, state / "logs", state / "results"):
        assert oct(mode(folder)) == "0o700", folder


async def test_a_rotated_server_log_stays_private(tmp_path: Path) -> None:
    logs = tmp_path / "state" / "logs"
    options = ConnectOptions(workspace=tmp_path, startup_timeout=15, log_dir=logs)
    spec = fault_spec(pid_file=tmp_path / "pids")
    await (await connect(spec, options, hint="legacy")).close()
    with (logs / "fault.log").open("ab") as log:  # grow it past the limit; appending keeps its mode
        log.write(b"x" * (MAX_LOG_BYTES + 1))
    await (await connect(spec, options, hint="legacy")).close()
    assert oct(mode(logs / "fault.log.1")) == "0o600"
    assert oct(mode(logs / "fault.log")) == "0o600"
    assert oct(mode(logs)) == "0o700"


def test_the_protocol_memory_and_its_folder_are_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _loosen(state)
    memory = ProtocolMemory(state / "protocols.json")
    memory.remember("fingerprint", "modern")
    assert json.loads((state / "protocols.json").read_text()) == {"fingerprint": "modern"}
    assert oct(mode(state / "protocols.json")) == "0o600"
    assert oct(mode(state)) == "0o700"


def test_the_repl_history_is_private(terminal: Terminal, isolated_home: Path, tmp_path: Path) -> None:
    _loosen(isolated_home / "state")
    with OPENAI.fake([]) as provider:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        terminal.start(
            [str(LEVELCODE), *provider_flags("openai", provider.base_url, OPENAI.model)], env, str(tmp_path)
        )
        terminal.wait_for("/help for commands")
        terminal.type("/help")
        terminal.send("Enter")
        terminal.wait_for("/new       start a new chat")
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    history = isolated_home / "state" / "history"
    assert "/help" in history.read_text()
    assert oct(mode(history)) == "0o600"
    assert oct(mode(isolated_home / "state")) == "0o700"
