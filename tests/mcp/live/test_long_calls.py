"""Long calls: a call whose server reports progress keeps going past its idle limit (each report
moves the deadline), up to the absolute cap of the server's `"timeouts"`, which nothing moves.
Load-bearing direction: a silent call still ends at the idle limit, and a chatty one at the cap —
never later. The fault server's `progress` tool, in memory (the memory_servers fixture), except
where no process may be left behind; and server-everything's long-running operation, for real."""

from __future__ import annotations

import time
from pathlib import Path

from levelcode.core.progress import Progress
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.timeouts_entry import CallTimeouts
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from tests.support.memory_servers import MemoryServers
from tests.support.processes import read_pids, survivors
from tests.support.servers import fault_spec, node_server

USER = Provenance("user", "/test/settings.json")


def options(tmp_path: Path) -> ConnectOptions:
    return ConnectOptions(workspace=tmp_path, startup_timeout=20, call_timeout=30)


async def test_progress_keeps_a_call_alive_past_its_idle_limit(tmp_path: Path) -> None:
    spec = fault_spec(pid_file=tmp_path / "pids", timeouts=CallTimeouts(idle_seconds=0.6, max_seconds=20))
    connection = await connect(spec, options(tmp_path), hint="legacy")
    seen: list[Progress] = []
    try:
        began = time.monotonic()
        outcome = await connection.call_tool(
            "progress", {"steps": 8, "interval": 0.25}, on_progress=seen.append
        )
        took = time.monotonic() - began
    finally:
        await connection.close()
    assert outcome.text == "done after 8 steps", outcome.text
    assert took > 1.5  # well past the 0.6 s idle limit
    assert [p.progress for p in seen] == [float(i) for i in range(1, 9)]
    assert survivors(read_pids(tmp_path / "pids")) == []


async def test_a_silent_call_still_ends_at_the_idle_limit(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    spec = memory_servers.add(timeouts=CallTimeouts(idle_seconds=0.5, max_seconds=20))
    connection = await connect(spec, options(tmp_path), hint="legacy", transports=memory_servers.plan)
    try:
        began = time.monotonic()
        outcome = await connection.call_tool("hang", {})
        took = time.monotonic() - began
    finally:
        await connection.close()
    assert outcome.text == "ERROR: fault/hang timed out after 0.5 s; LevelCode asked the server to cancel it"
    assert took < 5


async def test_progress_that_stops_ends_the_call_one_idle_limit_later(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    spec = memory_servers.add(timeouts=CallTimeouts(idle_seconds=0.5, max_seconds=20))
    connection = await connect(spec, options(tmp_path), hint="legacy", transports=memory_servers.plan)
    try:
        began = time.monotonic()
        outcome = await connection.call_tool("progress", {"steps": 4, "interval": 0.2, "then_hang": True})
        took = time.monotonic() - began
    finally:
        await connection.close()
    assert outcome.text == (
        "ERROR: fault/progress no progress for 0.5 s; LevelCode asked the server to cancel it"
    )
    assert 1.2 < took < 5


async def test_the_cap_ends_a_call_that_never_stops_reporting_progress(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    spec = memory_servers.add(timeouts=CallTimeouts(idle_seconds=0.5, max_seconds=1.5))
    connection = await connect(spec, options(tmp_path), hint="legacy", transports=memory_servers.plan)
    seen: list[Progress] = []
    try:
        began = time.monotonic()
        outcome = await connection.call_tool(
            "progress", {"steps": 100, "interval": 0.1}, on_progress=seen.append
        )
        took = time.monotonic() - began
    finally:
        await connection.close()
    assert outcome.text == (
        "ERROR: fault/progress still running after 1.5 s, the most a call may take; "
        "LevelCode asked the server to cancel it"
    )
    assert 1.4 < took < 5
    assert len(seen) >= 5  # it was reporting all along


async def test_server_everythings_long_operation_outlives_its_idle_limit(
    tmp_path: Path,
) -> None:
    spec = StdioServerSpec(
        name="everything",
        command=node_server("mcp-server-everything"),
        provenance=USER,
        timeouts=CallTimeouts(idle_seconds=1.5, max_seconds=30),
    )
    connection = await connect(spec, options(tmp_path))
    seen: list[Progress] = []
    try:
        outcome = await connection.call_tool(
            "trigger-long-running-operation", {"duration": 4, "steps": 8}, on_progress=seen.append
        )
    finally:
        await connection.close()
    assert outcome.text == "Long running operation completed. Duration: 4 seconds, Steps: 8."
    assert [p.progress for p in seen] == [float(i) for i in range(1, 9)]
