"""Protocol negotiation over in-memory servers: which era is found, on how many processes, with
which messages. No processes: a fake server of each era answers (or ignores) each message on the
next loop iteration, so the outcome is decided by the protocol alone.

Load-bearing direction: first contact must start a server once, whatever it speaks, and must never
send a silent legacy server (old Python SDK servers: an unknown request is ignored, the next line
kills the process) anything it does not know; the positive controls show each era still found."""

from __future__ import annotations

import time
from collections.abc import Mapping

import pytest

from levelcode.core.errors import McpError, ProtocolError, ServerExited
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.handshake import (
    LEGACY_VERSIONS,
    MODERN_VERSION,
    negotiate,
    negotiate_in_turn,
)
from levelcode.mcp.protocol.session import McpSession
from tests.fakes.memory_transport import MemoryTransport, Peer

NOT_FOUND = -32601
DISCOVERED = {"supportedVersions": [MODERN_VERSION], "capabilities": {"tools": {}}, "_meta": {}}
INITIALIZED = {"protocolVersion": LEGACY_VERSIONS[0], "capabilities": {}, "serverInfo": {"name": "old"}}
LEGACY_METHODS = frozenset({"initialize", "notifications/initialized", "tools/list", "ping"})


def _answer(message: Mapping[str, object], result: Mapping[str, object]) -> list[jsonrpc.Incoming]:
    request_id = message.get("id")
    return [jsonrpc.Response(request_id, result)] if isinstance(request_id, int) else []


def _refuse(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
    request_id = message.get("id")
    if not isinstance(request_id, int):
        return []
    return [jsonrpc.ErrorResponse(request_id, NOT_FOUND, f"no {message.get('method')}", None)]


def server_of(era: str) -> Peer:
    """A fake server: "modern" (refuses initialize), "legacy" (refuses discover), "dual" (answers
    both), "refuses-all", or "silent-legacy" (ignores discover; see SilentLegacyTransport)."""

    def peer(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
        method = message.get("method")
        if method == "server/discover":
            if era in ("modern", "dual"):
                return _answer(message, DISCOVERED)
            return [] if era == "silent-legacy" else _refuse(message)
        if method == "initialize":
            return _refuse(message) if era in ("modern", "refuses-all") else _answer(message, INITIALIZED)
        return []

    return peer


class SilentLegacyTransport(MemoryTransport):
    """An old Python SDK server: a method it does not know is ignored, and the next line after it
    makes the process exit (with a traceback on stderr)."""

    poisoned = False

    def send(self, message: Mapping[str, object]) -> None:
        if self.poisoned:
            self.exit("exit code 1 after an unknown request")
            return
        if message.get("method") not in LEGACY_METHODS:
            self.poisoned = True
        super().send(message)


class Spawner:
    """`open_session` for negotiate: a fresh in-memory server per call — a process each — all kept."""

    def __init__(self, era: str, *, exit_on: frozenset[str] = frozenset()) -> None:
        self.era = era
        self.exit_on = exit_on
        self.transports: list[MemoryTransport] = []

    async def __call__(self) -> McpSession:
        kind = SilentLegacyTransport if self.era == "silent-legacy" else MemoryTransport
        transport = kind(server_of(self.era), exit_on=self.exit_on)
        self.transports.append(transport)
        session = McpSession(transport)
        await session.open()
        return session

    def only(self) -> MemoryTransport:
        assert len(self.transports) == 1, f"{len(self.transports)} processes were started"
        return self.transports[0]


@pytest.mark.parametrize(
    ("era", "expected", "methods"),
    [
        ("legacy", "legacy", ["initialize", "notifications/initialized"]),
        ("silent-legacy", "legacy", ["initialize", "notifications/initialized"]),
        ("dual", "legacy", ["initialize", "notifications/initialized"]),
        ("modern", "modern", ["initialize", "server/discover"]),
    ],
)
@pytest.mark.parametrize("hint", [None, "legacy"])
async def test_first_contact_starts_one_process_whatever_the_server_speaks(
    era: str, expected: str, methods: list[str], hint: str | None
) -> None:
    spawn = Spawner(era)
    session, info = await negotiate(spawn, hint)  # type: ignore[arg-type]
    transport = spawn.only()
    assert info.era == expected
    assert transport.methods() == methods
    assert not transport.closed
    assert (session.envelope is not None) is (expected == "modern")


async def test_a_silent_legacy_server_is_never_sent_what_it_does_not_know() -> None:
    spawn = Spawner("silent-legacy")
    _, info = await negotiate(spawn, None)
    transport = spawn.only()
    assert isinstance(transport, SilentLegacyTransport)
    assert not transport.poisoned
    assert not transport.closed
    assert info.era == "legacy"


async def test_the_silent_server_model_can_fail() -> None:
    """The fake is faithful: after an unknown request, the next line ends it."""
    spawn = Spawner("silent-legacy")
    session = await spawn()
    session.notify("server/discover")
    session.notify("initialize")
    with pytest.raises(ServerExited):
        await session.request("tools/list", {}, timeout=5.0)


async def test_a_server_that_refuses_both_fails_naming_both_and_is_closed() -> None:
    spawn = Spawner("refuses-all")
    with pytest.raises(ProtocolError) as caught:
        await negotiate(spawn, None)
    assert "initialize" in str(caught.value)
    assert "server/discover" in str(caught.value)
    assert spawn.only().closed


async def test_a_server_that_exits_on_initialize_fails_and_leaves_nothing_open() -> None:
    spawn = Spawner("legacy", exit_on=frozenset({"initialize"}))
    with pytest.raises(McpError) as caught:
        await negotiate(spawn, None)
    assert isinstance(caught.value, ServerExited)
    assert spawn.only().closed


async def test_a_modern_hint_goes_straight_to_discover_and_sends_the_envelope_after() -> None:
    spawn = Spawner("modern")
    session, info = await negotiate(spawn, "modern")
    assert (info.era, info.protocol) == ("modern", MODERN_VERSION)
    assert spawn.only().methods() == ["server/discover"]
    assert session.envelope is not None
    assert session.envelope["io.modelcontextprotocol/protocolVersion"] == MODERN_VERSION


async def test_a_wrong_modern_hint_stays_on_a_server_that_refuses_discover() -> None:
    spawn = Spawner("legacy")
    _, info = await negotiate(spawn, "modern", hinted_probe=30.0)
    assert info.era == "legacy"
    assert spawn.only().methods()[:2] == ["server/discover", "initialize"]


async def test_a_wrong_modern_hint_restarts_a_silent_server_the_legacy_way_after_the_probe() -> None:
    """The one case with a second process: a remembered verdict that is no longer true."""
    probe = 0.2
    spawn = Spawner("silent-legacy")
    began = time.monotonic()
    _, info = await negotiate(spawn, "modern", hinted_probe=probe)
    spent = time.monotonic() - began
    assert info.era == "legacy"
    assert probe <= spent < probe + 1.0
    assert [t.methods()[0] for t in spawn.transports] == ["server/discover", "initialize"]
    assert spawn.transports[0].closed  # the silent first process is ended, not left behind


@pytest.mark.parametrize(("era", "expected"), [("modern", "modern"), ("legacy", "legacy")])
async def test_in_turn_negotiation_uses_one_connection(era: str, expected: str) -> None:
    spawn = Spawner(era)
    _, info = await negotiate_in_turn(spawn, None)
    assert info.era == expected
    sent = spawn.only().methods()
    assert sent[0] == "server/discover"
    assert ("initialize" in sent) is (expected == "legacy")
