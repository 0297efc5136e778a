"""A change to a resource the session read is never lost to timing, whatever order the server's
messages come in: LevelCode reads a resource only once the server confirmed it is watching it
(2026-07-28: the acknowledgement of a `subscriptions/listen` stream naming it; 2025-11-25: the
answer to `resources/subscribe`), and keeps a confirmed stream open until the stream replacing
it is confirmed too. Against the in-memory fault server, whose acknowledgements the test releases
in the worst order and whose resource changes the moment it is read. Load-bearing direction: what
the session read is current, or it is told the resource changed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from levelcode.core.outcome import ToolOutcome
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.server_content import read_resource
from tests.fakes.memory_server import MemoryServer
from tests.support.memory_servers import MemoryServers

NOTE = "test://note"
GREETING = "test://greeting"
Held = tuple[McpConnection, MemoryServer]


async def started(memory_servers: MemoryServers, tmp_path: Path, era: str) -> tuple[McpHub, McpConnection]:
    spec = memory_servers.add("--era", era)
    memory_servers[spec.name].resources = {NOTE: "first version", GREETING: "hello"}
    options = ConnectOptions(workspace=tmp_path, startup_timeout=5, call_timeout=5)
    hub = McpHub(options, transports=memory_servers.plan)
    await hub.start([spec])
    connection = hub.connection(spec.name)
    assert connection is not None, hub.servers[spec.name].status
    return hub, connection


async def flushed(connection: McpConnection) -> None:
    """Everything the server wrote before this has been taken (one wire, in order)."""
    await connection.session.request("ping", timeout=5)


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_a_resource_that_changes_as_it_is_read_is_reported(
    memory_servers: MemoryServers, tmp_path: Path, era: str
) -> None:
    hub, connection = await started(memory_servers, tmp_path, era)
    memory_servers["fault"].changes_when_read.add(NOTE)
    try:
        read = await read_resource(connection, NOTE)
        await flushed(connection)
    finally:
        await hub.reap_all()
    assert read.text.endswith("first version")  # the server changed it right after
    assert NOTE in connection.listening.pending
    assert memory_servers["fault"].subscriptions.unwatched_reads == []


@pytest.fixture
async def held(memory_servers: MemoryServers, tmp_path: Path) -> AsyncIterator[Held]:
    """A 2026-07-28 server whose streams naming resources are acknowledged when the test says."""
    hub, connection = await started(memory_servers, tmp_path, "modern")
    server = memory_servers["fault"]
    server.subscriptions.hold = True
    yield connection, server
    await hub.reap_all()


def reading(connection: McpConnection, uri: str) -> asyncio.Future[ToolOutcome]:
    return asyncio.ensure_future(read_resource(connection, uri))


async def test_an_acknowledgement_that_comes_after_the_stream_was_replaced_leaves_no_gap(
    held: Held,
) -> None:
    connection, server = held
    note = reading(connection, NOTE)
    await server.subscriptions.naming_resources(1)
    greeting = reading(connection, GREETING)
    first, second = await server.subscriptions.naming_resources(2)
    server.subscriptions.acknowledge(first)  # late: the stream naming both was already asked for
    await flushed(connection)
    server.change(NOTE, "second version")
    server.subscriptions.acknowledge(second)
    read_note, _ = await asyncio.gather(note, greeting)
    await flushed(connection)
    assert read_note.text.endswith("second version") or NOTE in connection.listening.pending
    assert server.subscriptions.unwatched_reads == []


async def test_an_acknowledgement_that_crosses_the_streams_closing_is_not_taken_for_its_successors(
    held: Held,
) -> None:
    connection, server = held
    note = reading(connection, NOTE)
    (first,) = await server.subscriptions.naming_resources(1)
    acknowledgement = server.subscriptions.confirm(first)  # the server subscribes it and says so …
    greeting = reading(connection, GREETING)
    _, second = await server.subscriptions.naming_resources(2)  # … as LevelCode replaces it
    acknowledgement()  # it arrives for a stream LevelCode has closed
    await flushed(connection)
    await flushed(connection)
    read_early = server.subscriptions.unwatched_reads[:]
    server.subscriptions.acknowledge(second)
    await asyncio.gather(note, greeting)
    assert read_early == []  # nothing was read on the strength of the wrong stream's word
    assert server.subscriptions.unwatched_reads == []


async def test_a_confirmed_stream_stays_open_until_the_one_replacing_it_is_confirmed(
    held: Held,
) -> None:
    connection, server = held
    note = reading(connection, NOTE)
    (first,) = await server.subscriptions.naming_resources(1)
    server.subscriptions.acknowledge(first)
    await note
    greeting = reading(connection, GREETING)
    _, second = await server.subscriptions.naming_resources(2)
    server.change(NOTE, "second version")
    await flushed(connection)
    told_before = set(connection.listening.pending)
    server.subscriptions.acknowledge(second)
    await greeting
    await flushed(connection)
    assert told_before == {NOTE}
    assert server.subscriptions.unwatched_reads == []
    assert server.subscriptions.open() == [second]  # the lists-only stream and the first went
