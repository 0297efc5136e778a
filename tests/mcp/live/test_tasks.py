"""A long tool call run as a task: the model gets one result (or one clean ERROR), the user sees the
task's status as progress, and a task outlives what a remote connection goes through.

Against the spec-written server (tests/servers/task_server.py: the 2026-07-28 tasks extension,
over Streamable HTTP and stdio) and server-everything's 2025-11-25 task tool
(simulate-research-query, taskSupport "required").
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest

from levelcode.core.progress import Progress
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.config.timeouts_entry import CallTimeouts
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection, connect
from levelcode.mcp.protocol.session import DEFAULT_HANDLERS, ClientFeatures
from levelcode.mcp.protocol.task_calls import UNREACHABLE
from tests.support.http_servers import ServerProcess, free_port, running
from tests.support.servers import TASK_SERVER, node_server

USER = Provenance("user", "/test/settings.json")


def task_server(*flags: str) -> ServerProcess:
    port = free_port()
    return ServerProcess([sys.executable, str(TASK_SERVER), str(port), *flags], port, "/mcp")


async def accept(params: Mapping[str, object]) -> Mapping[str, object]:
    return {"action": "accept", "content": {"ok": True}}


def options(tmp_path: Path) -> ConnectOptions:
    features = ClientFeatures(handlers={**DEFAULT_HANDLERS, "elicitation/create": accept})
    return ConnectOptions(workspace=tmp_path, startup_timeout=20, call_timeout=30, features=features)


async def counts(connection: McpConnection) -> dict[str, int]:
    outcome = await connection.call_tool("request_counts", {})
    return dict(json.loads(outcome.text))


@pytest.fixture
async def remote(tmp_path: Path) -> AsyncIterator[tuple[ServerProcess, McpConnection]]:
    with running(task_server("--store", str(tmp_path / "tasks.json"))) as server:
        spec = HttpServerSpec(name="tasks", url=server.url, provenance=USER, timeouts=CallTimeouts(5, 30))
        connection = await connect(spec, options(tmp_path))
        try:
            yield server, connection
        finally:
            await connection.close()


async def test_a_long_call_runs_as_a_task_and_the_model_gets_its_one_result(
    remote: tuple[ServerProcess, McpConnection],
) -> None:
    _server, connection = remote
    assert connection.info.era == "modern"
    assert connection.info.task_calls
    seen: list[Progress] = []
    outcome = await connection.call_tool("task_report", {"seconds": 1.2, "steps": 4}, on_progress=seen.append)
    assert outcome.text == "task report done: 4 steps in 1.2 s"
    assert not outcome.is_error
    statuses = [(p.task.status, p.message) for p in seen if p.task is not None]
    assert statuses[0] == ("working", "step 1 of 4")
    assert ("working", "step 4 of 4") in statuses
    assert statuses[-1][0] == "completed"
    assert (await counts(connection))["tasks/get"] >= 4


async def test_a_tasks_status_carries_the_progress_the_server_last_reported(tmp_path: Path) -> None:
    """Over stdio the task server reports progress on the call's token as steps end: each status
    change carries the figures reported before it — none before the first, never a made-up 0."""
    spec = StdioServerSpec("tasks", sys.executable, USER, args=(str(TASK_SERVER), "--stdio"))
    connection = await connect(spec, options(tmp_path))
    seen: list[Progress] = []
    try:
        outcome = await connection.call_tool(
            "task_report", {"seconds": 2, "steps": 4}, on_progress=seen.append
        )
    finally:
        await connection.close()
    assert outcome.text == "task report done: 4 steps in 2 s"
    reports = [(p.progress, p.total) for p in seen if p.task is None]
    assert reports[:3] == [(1, 4), (2, 4), (3, 4)]  # the fourth may come after the task ended
    last: tuple[float | None, float | None] = (None, None)
    for update in seen:
        if update.task is None:
            last = (update.progress, update.total)
        else:
            assert (update.progress, update.total) == last
    assert seen[0].task is not None
    assert (seen[0].progress, seen[0].total) == (None, None)
    assert [p.task.status for p in seen if p.task is not None][-1] == "completed"


async def test_a_task_that_needs_the_user_asks_once_and_finishes_with_the_answer(
    remote: tuple[ServerProcess, McpConnection],
) -> None:
    _server, connection = remote
    outcome = await connection.call_tool("task_ask", {})
    assert outcome.text == 'the user answered {"action": "accept", "content": {"ok": true}}'
    assert (await counts(connection))["tasks/update"] == 1


async def test_a_failed_task_is_one_clean_error(remote: tuple[ServerProcess, McpConnection]) -> None:
    _server, connection = remote
    outcome = await connection.call_tool("task_fail", {})
    assert outcome.is_error
    assert outcome.text.startswith("ERROR: tasks/task_fail: the backend refused the job")


async def test_the_cap_ends_a_task_and_the_server_is_asked_to_cancel_it(tmp_path: Path) -> None:
    with running(task_server()) as server:
        spec = HttpServerSpec(name="tasks", url=server.url, provenance=USER, timeouts=CallTimeouts(0.5, 1))
        connection = await connect(spec, options(tmp_path))
        try:
            outcome = await connection.call_tool("task_forever", {})
            for _ in range(50):  # the cancel is sent on its own: bounded wait for it to land
                if (await counts(connection)).get("tasks/cancel") == 1:
                    break
                await asyncio.sleep(0.1)
            final = await counts(connection)
        finally:
            await connection.close()
    assert outcome.text == (
        "ERROR: tasks/task_forever still running after 1 s, the most a call may take; "
        "LevelCode asked the server to cancel it"
    )
    assert final["tasks/cancel"] == 1


async def test_interrupting_the_call_cancels_the_task(remote: tuple[ServerProcess, McpConnection]) -> None:
    _server, connection = remote
    started = asyncio.Event()
    call = asyncio.ensure_future(
        connection.call_tool("task_forever", {}, on_progress=lambda _p: started.set())
    )
    async with asyncio.timeout(10):
        await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    async with asyncio.timeout(10):
        while (await counts(connection)).get("tasks/cancel") != 1:
            await asyncio.sleep(0.1)


async def test_a_task_survives_the_remote_server_restarting_mid_call(
    remote: tuple[ServerProcess, McpConnection],
) -> None:
    server, connection = remote
    working, unreachable = asyncio.Event(), asyncio.Event()
    seen: list[Progress] = []

    def progress(update: Progress) -> None:
        seen.append(update)
        working.set()
        if update.message == UNREACHABLE:
            unreachable.set()

    call = asyncio.ensure_future(
        connection.call_tool("task_report", {"seconds": 3, "steps": 3}, on_progress=progress)
    )
    async with asyncio.timeout(10):
        await working.wait()
    await asyncio.to_thread(server.kill)
    async with asyncio.timeout(10):
        await unreachable.wait()  # a poll failed while it was down: the call goes on
    await asyncio.to_thread(server.start)  # back on the same port, its tasks read from its store
    outcome = await asyncio.wait_for(call, 30)
    assert outcome.text == "task report done: 3 steps in 3 s"
    assert seen[-1].task is not None
    assert seen[-1].task.status == "completed"


async def test_a_stdio_server_dying_mid_task_is_one_clean_error(tmp_path: Path) -> None:
    spec = StdioServerSpec(
        name="tasks", command=sys.executable, args=(str(TASK_SERVER), "--stdio"), provenance=USER
    )
    connection = await connect(spec, options(tmp_path))
    working = asyncio.Event()
    call = asyncio.ensure_future(
        connection.call_tool("task_report", {"seconds": 30}, on_progress=lambda _p: working.set())
    )
    async with asyncio.timeout(10):
        await working.wait()
    assert connection.pid is not None
    os.kill(connection.pid, signal.SIGKILL)
    outcome = await asyncio.wait_for(call, 10)
    await connection.close()
    assert outcome.is_error
    assert outcome.text.startswith("ERROR: server 'tasks' exited"), outcome.text
    assert "during task_report" in outcome.text


async def test_server_everythings_2025_11_25_task_tool_is_followed_to_its_report(tmp_path: Path) -> None:
    spec = StdioServerSpec(name="everything", command=node_server("mcp-server-everything"), provenance=USER)
    connection = await connect(spec, options(tmp_path))
    seen: list[Progress] = []
    try:
        assert connection.info.task_calls
        outcome = await connection.call_tool(
            "simulate-research-query", {"topic": "tide pools"}, on_progress=seen.append
        )
    finally:
        await connection.close()
    assert not outcome.is_error, outcome.text
    assert "# Research Report: tide pools" in outcome.text
    messages = [p.message for p in seen if p.task is not None]
    assert "Gathering sources..." in messages
    assert "Generating report..." in messages
