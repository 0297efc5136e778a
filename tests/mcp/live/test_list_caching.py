"""Caching hints against servers that set them and count what reaches them: the spec-written
task server (`--ttl-ms`; it counts every request), in memory (the memory_servers fixture), and
the official SDK's and FastMCP's servers for real (`--cache-ms`, `--cache-ttl`; `test://reads`
counts the reads it served). Lists and reads are reused within their TTL, fetched again after
it, and a list_changed notification drops the cached list at once."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import HttpServerSpec, Provenance
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.server_content import read_resource
from levelcode.mcp.protocol.jsonrpc import Notification
from tests.support.http_servers import ServerProcess, fastmcp_server, running, sdk_server
from tests.support.memory_servers import MemoryServers

USER = Provenance("user", "/test/settings.json")


def options(tmp_path: Path) -> ConnectOptions:
    return ConnectOptions(workspace=tmp_path, startup_timeout=20, call_timeout=30)


async def counts(connection: McpConnection) -> dict[str, int]:
    return dict(json.loads((await connection.call_tool("request_counts", {})).text))


async def started(url: str, tmp_path: Path) -> McpHub:
    hub = McpHub(options(tmp_path))
    await hub.start([HttpServerSpec(name="srv", url=url, provenance=USER)])
    assert hub.connection("srv") is not None, hub.statuses()["srv"]
    return hub


async def task_server(servers: MemoryServers, tmp_path: Path, *flags: str) -> McpHub:
    """A hub running the task server, in memory, started with `flags`."""
    hub = McpHub(options(tmp_path), transports=servers.plan)
    await hub.start([servers.add_tasks(*flags, name="srv")])
    assert hub.connection("srv") is not None, hub.statuses()["srv"]
    return hub


async def test_a_tools_list_is_reused_within_its_ttl(memory_servers: MemoryServers, tmp_path: Path) -> None:
    hub = await task_server(memory_servers, tmp_path, "--ttl-ms", "600000")
    try:
        for _turn in range(3):
            assert not await hub.refresh_stale_lists()
        connection = hub.connection("srv")
        assert connection is not None
        seen = await counts(connection)
    finally:
        await hub.reap_all()
    assert seen["tools/list"] == 1


async def test_a_zero_ttl_list_is_fetched_again_before_each_model_request(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    hub = await task_server(memory_servers, tmp_path, "--ttl-ms", "0")
    try:
        for _turn in range(3):
            await hub.refresh_stale_lists()
        connection = hub.connection("srv")
        assert connection is not None
        seen = await counts(connection)
    finally:
        await hub.reap_all()
    assert seen["tools/list"] == 4  # at start, then once before each of the three requests


async def test_list_changed_drops_a_fresh_list_at_once(memory_servers: MemoryServers, tmp_path: Path) -> None:
    hub = await task_server(memory_servers, tmp_path, "--ttl-ms", "600000")
    try:
        connection = hub.connection("srv")
        assert connection is not None
        assert not connection.tools_stale
        handler = connection.session.on_notification
        assert handler is not None
        handler(Notification("notifications/tools/list_changed", {}))
        await hub.refresh_stale_lists()
        seen = await counts(connection)
    finally:
        await hub.reap_all()
    assert seen["tools/list"] >= 2


@pytest.mark.parametrize(
    ("make", "ttl"),
    [(lambda: sdk_server("--cache-ms", "1500"), 1.5), (lambda: fastmcp_server("--cache-ttl", "2"), 2.0)],
    ids=["sdk", "fastmcp"],
)
async def test_reads_are_served_from_cache_within_the_ttl_and_fetched_after(
    tmp_path: Path, make: Callable[[], ServerProcess], ttl: float
) -> None:
    with running(make()) as server:
        hub = await started(server.url, tmp_path)
        try:
            connection = hub.connection("srv")
            assert connection is not None
            first = time.monotonic()
            early = [(await read_resource(connection, "test://reads")).text for _ in range(3)]
            later = early[-1]
            while later == early[0] and time.monotonic() - first < 10:
                await asyncio.sleep(0.05)  # a pace for asking again, not a wait for an event
                later = (await read_resource(connection, "test://reads")).text
            waited = time.monotonic() - first
        finally:
            await hub.reap_all()
    assert early == ["read 1", "read 1", "read 1"]
    assert later == "read 2"
    assert waited >= ttl  # never a new read before the TTL ran out
