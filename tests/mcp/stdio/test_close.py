"""Closing a stdio server: stdin closed, a short grace for it to exit, then SIGTERM → SIGKILL of its
group. Load-bearing direction: a server that lingers after its stdin closed (server-everything for
~370 ms, the Python SDK's servers for up to a second) is ended once the short grace is over, and
nothing of its group — grandchildren included — is left when `close` returns; one that sends a
request after its stdin closed is waiting for what can never come, so it is ended at once; a
server that simply exits is never signalled.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from levelcode.mcp.stdio import pipe_transport
from tests.support.processes import read_pids, survivors
from tests.support.servers import fault_spec

LONG_GRACE = 60.0  # were the grace waited out, the test would time out long before


async def test_a_server_asking_after_its_stdin_closed_is_ended_without_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipe_transport, "STDIN_CLOSE_GRACE_SECONDS", LONG_GRACE)
    pid_file = tmp_path / "pids"
    spec = fault_spec("--ask-after-close", pid_file=pid_file)
    connection = await connect(spec, ConnectOptions(workspace=tmp_path), hint="legacy")
    await asyncio.wait_for(connection.close(), 10)
    assert survivors(read_pids(pid_file)) == []


async def test_a_server_that_exits_on_stdin_close_is_not_signalled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipe_transport, "STDIN_CLOSE_GRACE_SECONDS", LONG_GRACE)
    spec = fault_spec(pid_file=tmp_path / "pids")
    connection = await connect(spec, ConnectOptions(workspace=tmp_path), hint="legacy")
    exited: list[int] = []
    original = pipe_transport.terminate_group

    async def recording(pid: int, *, leader_exited: asyncio.Event) -> None:
        exited.append(int(leader_exited.is_set()))
        await original(pid, leader_exited=leader_exited)

    monkeypatch.setattr(pipe_transport, "terminate_group", recording)
    await asyncio.wait_for(connection.close(), 10)
    assert exited == [1]  # by the time the group is ended, the server had left by itself


async def test_a_lingering_server_is_ended_after_the_short_grace_leaving_nothing(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    spec = fault_spec("--linger", "--grandchildren", "2", pid_file=pid_file)
    connection = await connect(spec, ConnectOptions(workspace=tmp_path), hint="legacy")
    began = time.monotonic()
    await asyncio.wait_for(connection.close(), 10)
    took = time.monotonic() - began
    assert survivors(read_pids(pid_file), within=0) == []  # gone the moment close returns
    assert took < 1.0, f"close took {took:.2f} s: the grace is waited out for a server doing nothing"
