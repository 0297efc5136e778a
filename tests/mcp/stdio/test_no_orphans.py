"""No server process outlives LevelCode — not after SIGTERM, SIGINT or SIGHUP, and not even after
SIGKILL, which LevelCode cannot catch: every server's whole process group (grandchildren, and
`npx` → `sh` → `node`) must be gone within a few seconds, checked by pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.cli import start_cli, write_settings
from tests.support.processes import children_of, group_members, read_pids, survivors, wait_for_output
from tests.support.servers import FAULT_SERVER, ROOT, npx_installed


def _fault_settings(home: Path, pid_file: Path) -> None:
    fault = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--grandchildren", "2", "--ignore-sigterm", "--linger"],
        "env": {"FAULT_PID_FILE": str(pid_file)},
    }
    write_settings(home, {"mcpServers": {"fault": fault}})


def _server_groups(levelcode: subprocess.Popen[bytes]) -> list[int]:
    """Every pid in the process groups of LevelCode's children (servers and the watchdog)."""
    pids: list[int] = []
    for child in children_of(levelcode.pid):
        pids.extend(group_members(child))
    return pids


Launch = Callable[..., subprocess.Popen[bytes]]


@pytest.fixture
def launch(isolated_home: Path) -> Iterator[Launch]:
    """Start `levelcode ARGS` and wait until its stderr says `ready`; killed and closed afterwards."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(args: list[str], ready: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
        process = start_cli(args, isolated_home, cwd=cwd)
        processes.append(process)
        assert process.stderr is not None
        wait_for_output(process.stderr, ready)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=15)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_sigkill_of_levelcode_leaves_no_fault_server_or_grandchild(
    isolated_home: Path, tmp_path: Path, launch: Launch
) -> None:
    pid_file = tmp_path / "pids"
    _fault_settings(isolated_home, pid_file)
    levelcode = launch(["mcp", "call", "fault", "hang"], "calling fault/hang", tmp_path)
    pids = read_pids(pid_file)
    assert len(pids) >= 3  # the server and two grandchildren (twice while the protocol is probed)
    everything = sorted(set(pids) | set(_server_groups(levelcode)))
    levelcode.send_signal(signal.SIGKILL)
    assert levelcode.wait(timeout=15) == -signal.SIGKILL
    assert survivors(everything, within=8) == []


def test_sigkill_of_levelcode_leaves_no_npx_node_chain(isolated_home: Path, launch: Launch) -> None:
    command, *args = npx_installed("mcp-server-everything")
    server = {"command": command, "args": args}
    write_settings(isolated_home, {"mcpServers": {"everything": server}})
    arguments = '{"duration": 120, "steps": 120}'
    levelcode = launch(
        ["mcp", "call", "everything", "trigger-long-running-operation", arguments], "calling everything/"
    )
    pids = _server_groups(levelcode)
    commands = {
        Path(f"/proc/{pid}/comm").read_text().strip() for pid in pids if Path(f"/proc/{pid}/comm").exists()
    }
    assert "node" in commands or "npm exec" in " ".join(commands)
    assert len(pids) >= 3, f"expected npx, sh and node (and the watchdog); saw {commands}"
    levelcode.send_signal(signal.SIGKILL)
    assert levelcode.wait(timeout=15) == -signal.SIGKILL
    assert survivors(pids, within=8) == []


@pytest.mark.sandbox
def test_sigkill_of_levelcode_leaves_nothing_of_a_confined_server(
    isolated_home: Path, tmp_path: Path, launch: Launch
) -> None:
    """bwrap, its init in the new pid namespace, the server and its grandchildren: all gone."""
    fault = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--grandchildren", "2", "--ignore-sigterm", "--linger"],
        "sandbox": True,
    }
    write_settings(isolated_home, {"mcpServers": {"fault": fault}})
    levelcode = launch(["mcp", "call", "fault", "hang"], "calling fault/hang", tmp_path)
    pids = _server_groups(levelcode)
    commands = {
        Path(f"/proc/{pid}/comm").read_text().strip() for pid in pids if Path(f"/proc/{pid}/comm").exists()
    }
    assert {"bwrap", "sleep"} <= commands, commands
    assert len(pids) >= 6, commands  # bwrap twice, the server, two sleepers, the watchdog
    levelcode.send_signal(signal.SIGKILL)
    assert levelcode.wait(timeout=15) == -signal.SIGKILL
    assert survivors(pids, within=8) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_catchable_signals_reap_every_server_before_exit(
    isolated_home: Path, tmp_path: Path, signum: int, launch: Launch
) -> None:
    pid_file = tmp_path / "pids"
    _fault_settings(isolated_home, pid_file)
    levelcode = launch(["mcp", "call", "fault", "hang"], "calling fault/hang", tmp_path)
    pids = read_pids(pid_file)
    levelcode.send_signal(signum)
    assert levelcode.wait(timeout=15) == 128 + signum
    # reaped before exit: nothing may be left the moment the process is gone
    assert [p for p in pids if survivors([p], within=0)] == []


def test_watchdog_ignores_unregistered_groups(tmp_path: Path) -> None:
    """The watchdog kills only what it was told about: a bystander group survives its EOF."""
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        read_end, write_end = os.pipe()
        script = ROOT / "levelcode" / "mcp" / "stdio" / "watchdog.py"
        watchdog = subprocess.Popen([sys.executable, "-I", "-S", str(script)], stdin=read_end)
        os.close(read_end)
        os.write(write_end, f"+{bystander.pid}\n-{bystander.pid}\n".encode())
        os.close(write_end)
        assert watchdog.wait(timeout=10) == 0
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
