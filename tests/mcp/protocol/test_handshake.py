"""Protocol negotiation over in-memory servers: which era wins, what each attempt costs, and that
every losing or failed attempt is closed. No processes: a fake server of each era answers (or
ignores) the handshake on the next loop iteration, so the race is decided by the protocol alone and
each timing assertion states its bound."""

from __future__ import annotations

import time
from collections.abc import Mapping

import pytest

from levelcode.core.errors import McpError, ServerExited
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.handshake import (
    LEGACY_VERSIONS,
    MODERN_VERSION,
    finish_background_closes,
    negotiate,
    negotiate_in_turn,
)
from levelcode.mcp.protocol.session import McpSession
from tests.fakes.memory_transport import MemoryTransport, Peer

NOT_FOUND = -32601


def _answer(message: Mapping[str, object], result: Mapping[str, object]) -> list[jsonrpc.Incoming]:
    request_id = message.get("id")
    return [jsonrpc.Response(request_id, result)] if isinstance(request_id, int) else []


def _refuse(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
    request_id = message.get("id")
    if not isinstance(request_id, int):
        return []
    return [jsonrpc.ErrorResponse(request_id, NOT_FOUND, f"no {message.get('method')}", None)]


DISCOVERED = {"supportedVersions": [MODERN_VERSION], "capabilities": {"tools": {}}, "_meta": {}}
INITIALIZED = {"protocolVersion": LEGACY_VERSIONS[0], "capabilities": {}, "serverInfo": {"name": "old"}}


def server_of(era: str) -> Peer:
    """A fake server: "modern" (no initialize), "legacy" (refuses discover), "dual", or
    "silent-legacy" (ignores discover, as old Python SDK servers do)."""

    def peer(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
        method = message.get("method")
        if method == "server/discover":
            if era in ("modern", "dual"):
                return _answer(message, DISCOVERED)
            return [] if era == "silent-legacy" else _refuse(message)
        if method == "initialize":
            return _refuse(message) if era == "modern" else _answer(message, INITIALIZED)
        return []

    return peer


class Spawner:
    """`open_session` for negotiate: a fresh in-memory server per attempt, every one kept."""

    def __init__(self, peer: Peer, *, exit_on: frozenset[str] = frozenset()) -> None:
        self.peer = peer
        self.exit_on = exit_on
        self.transports: list[MemoryTransport] = []

    async def __call__(self) -> McpSession:
        transport = MemoryTransport(self.peer, exit_on=self.exit_on)
        self.transports.append(transport)
        session = McpSession(transport)
        await session.open()
        return session

    def first_methods(self) -> list[str]:
        return sorted(t.methods()[0] for t in self.transports)


@pytest.mark.parametrize(
    ("era", "expected"), [("modern", "modern"), ("dual", "modern"), ("legacy", "legacy")]
)
async def test_without_a_hint_the_race_picks_the_servers_era(era: str, expected: str) -> None:
    spawn = Spawner(server_of(era))
    session, info = await negotiate(spawn, None, probe_grace=5.0)
    await finish_background_closes()
    assert info.era == expected
    assert spawn.first_methods() == ["initialize", "server/discover"]  # one attempt of each, at once
    winner = [t for t in spawn.transports if t is session.transport]
    losers = [t for t in spawn.transports if t is not session.transport]
    assert len(winner) == 1
    assert not winner[0].closed
    assert [t.closed for t in losers] == [True]


async def test_a_legacy_answer_waits_for_a_modern_one_no_longer_than_the_grace() -> None:
    grace = 0.2
    spawn = Spawner(server_of("silent-legacy"))
    began = time.monotonic()
    _, info = await negotiate(spawn, None, probe_grace=grace)
    spent = time.monotonic() - began
    await finish_background_closes()
    assert info.era == "legacy"
    assert grace <= spent < grace + 1.0  # the grace, plus at most a second of loop scheduling
    assert sum(t.closed for t in spawn.transports) == 1


async def test_a_refused_discover_does_not_wait_for_the_grace() -> None:
    spawn = Spawner(server_of("legacy"))
    began = time.monotonic()
    _, info = await negotiate(spawn, None, probe_grace=30.0)
    assert info.era == "legacy"
    assert time.monotonic() - began < 5.0  # decided by the refusal, far inside the 30 s grace
    await finish_background_closes()


async def test_a_legacy_hint_opens_one_session_with_initialize_only() -> None:
    spawn = Spawner(server_of("dual"))
    session, info = await negotiate(spawn, "legacy")
    assert info.era == "legacy"
    assert len(spawn.transports) == 1
    assert spawn.transports[0].methods() == ["initialize", "notifications/initialized"]
    assert session.envelope is None


async def test_a_modern_hint_goes_straight_to_discover_and_sends_the_envelope_after() -> None:
    spawn = Spawner(server_of("modern"))
    session, info = await negotiate(spawn, "modern")
    assert (info.era, info.protocol) == ("modern", MODERN_VERSION)
    assert spawn.first_methods() == ["server/discover"]
    assert session.envelope is not None
    assert session.envelope["io.modelcontextprotocol/protocolVersion"] == MODERN_VERSION


async def test_a_wrong_modern_hint_restarts_a_silent_server_the_legacy_way_after_the_probe() -> None:
    probe = 0.2
    spawn = Spawner(server_of("silent-legacy"))
    began = time.monotonic()
    _, info = await negotiate(spawn, "modern", hinted_probe=probe)
    spent = time.monotonic() - began
    assert info.era == "legacy"
    assert probe <= spent < probe + 1.0
    assert [t.methods()[0] for t in spawn.transports] == ["server/discover", "initialize"]
    assert spawn.transports[0].closed  # the silent first process is ended, not left behind


async def test_a_wrong_modern_hint_stays_on_a_server_that_refuses_discover() -> None:
    spawn = Spawner(server_of("legacy"))
    _, info = await negotiate(spawn, "modern", hinted_probe=30.0)
    assert info.era == "legacy"
    assert len(spawn.transports) == 1  # it answered, so it is alive: initialize on the same one
    assert spawn.transports[0].methods()[:2] == ["server/discover", "initialize"]


async def test_a_server_that_exits_on_both_handshakes_fails_and_leaves_nothing_open() -> None:
    spawn = Spawner(server_of("legacy"), exit_on=frozenset({"initialize", "server/discover"}))
    with pytest.raises(McpError) as caught:
        await negotiate(spawn, None, probe_grace=5.0)
    await finish_background_closes()
    assert isinstance(caught.value, ServerExited)
    assert all(t.closed for t in spawn.transports)


@pytest.mark.parametrize(("era", "expected"), [("modern", "modern"), ("legacy", "legacy")])
async def test_in_turn_negotiation_uses_one_connection(era: str, expected: str) -> None:
    spawn = Spawner(server_of(era))
    _, info = await negotiate_in_turn(spawn, None)
    assert info.era == expected
    assert len(spawn.transports) == 1
    sent = spawn.transports[0].methods()
    assert sent[0] == "server/discover"
    assert ("initialize" in sent) is (expected == "legacy")
