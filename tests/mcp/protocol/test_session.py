"""The session over an in-memory transport: every request ends in exactly one outcome, promptly.
No processes and no sleeps: the fake peer answers on the next loop iteration."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from levelcode.core.errors import (
    CallTimeout,
    MessageTooLarge,
    ProtocolError,
    RemoteError,
    ServerExited,
)
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.session import McpSession
from tests.fakes.memory_transport import MemoryTransport, Peer


def echo_peer(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
    request_id = message.get("id")
    if not isinstance(request_id, int):
        return []
    method = message.get("method")
    if method == "fail":
        return [jsonrpc.ErrorResponse(request_id, -32000, "nope", {"why": 1})]
    if method == "hang":
        return []
    if method == "stringly":
        return [jsonrpc.Response(str(request_id), {"ok": True})]
    if method == "garbled":
        return [jsonrpc.Malformed("not JSON", request_id)]
    return [jsonrpc.Response(request_id, {"echo": message.get("params")})]


async def _session(peer: Peer = echo_peer) -> tuple[McpSession, MemoryTransport]:
    transport = MemoryTransport(peer)
    session = McpSession(transport)
    await session.open()
    return session, transport


async def test_request_gets_its_result() -> None:
    session, _ = await _session()
    assert await session.request("x", {"a": 1}, timeout=5) == {"echo": {"a": 1}}


async def test_error_response_is_a_remote_error_with_code_and_data() -> None:
    session, _ = await _session()
    with pytest.raises(RemoteError, match="nope") as raised:
        await session.request("fail", timeout=5)
    assert (raised.value.code, raised.value.data) == (-32000, {"why": 1})


async def test_timeout_raises_and_asks_the_server_to_cancel() -> None:
    session, transport = await _session()
    with pytest.raises(CallTimeout, match=r"tool 't' timed out after 0.05 s"):
        await session.request("hang", timeout=0.05, tool="t")
    cancel = transport.sent[-1]
    assert cancel["method"] == "notifications/cancelled"
    params = cancel["params"]
    assert isinstance(params, Mapping)
    assert params["requestId"] == transport.sent[0]["id"]


async def test_aborting_the_caller_sends_a_cancellation() -> None:
    session, transport = await _session()
    task = asyncio.ensure_future(session.request("hang", timeout=None))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert transport.sent[-1]["method"] == "notifications/cancelled"


async def test_closing_fails_every_pending_request_at_once() -> None:
    session, _ = await _session()
    pending = [asyncio.ensure_future(session.request("hang", timeout=None)) for _ in range(3)]
    await asyncio.sleep(0)
    session.on_closed(ServerExited("server exited (exit code 1)", server="mem", detail="exit code 1"))
    results = await asyncio.gather(*pending, return_exceptions=True)
    assert all(isinstance(r, ServerExited) for r in results)
    with pytest.raises(ServerExited):
        await session.request("x", timeout=5)


async def test_a_malformed_answer_fails_only_its_request() -> None:
    session, _ = await _session()
    with pytest.raises(ProtocolError, match="malformed message"):
        await session.request("garbled", timeout=5)
    assert await session.request("x", timeout=5) == {"echo": None}


async def test_an_unattributable_oversized_message_closes_the_session() -> None:
    session, transport = await _session()
    pending = asyncio.ensure_future(session.request("hang", timeout=None))
    await asyncio.sleep(0)
    transport.deliver(jsonrpc.Malformed("message larger than the limit", None, fatal=True))
    with pytest.raises(MessageTooLarge):
        await pending


async def test_stringified_ids_are_matched() -> None:
    session, _ = await _session()
    assert await session.request("stringly", timeout=5) == {"ok": True}


async def test_unsolicited_messages_are_ignored_with_a_note() -> None:
    session, transport = await _session()
    transport.deliver(jsonrpc.Response(999, {}))
    transport.deliver(jsonrpc.ErrorResponse(None, -1, "stray"))
    transport.deliver(jsonrpc.Malformed("not JSON"))
    assert await session.request("x", timeout=5) == {"echo": None}
    assert "stray" in " ".join(session.diagnostics())


async def test_server_requests_are_answered_and_sampling_is_refused() -> None:
    _, transport = await _session()
    transport.deliver(jsonrpc.Request(0, "ping", {}))
    transport.deliver(jsonrpc.Request(1, "roots/list", {}))
    transport.deliver(jsonrpc.Request(2, "sampling/createMessage", {}))
    transport.deliver(jsonrpc.Request(3, "elicitation/create", {}))
    await transport.wait_sent(4)
    replies = {m["id"]: m for m in transport.sent}
    assert replies[0]["result"] == {}
    assert replies[1]["result"] == {"roots": []}
    error = replies[2]["error"]
    assert isinstance(error, Mapping)
    assert "does not allow sampling" in str(error["message"])
    assert "error" in replies[3]


async def test_envelope_is_added_to_every_request() -> None:
    session, transport = await _session()
    session.envelope = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    await session.request("x", {"_meta": {"progressToken": 1}, "a": 2}, timeout=5)
    params = transport.sent[-1]["params"]
    assert params == {
        "a": 2,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "progressToken": 1},
    }


async def test_notifications_reach_the_handler() -> None:
    seen: list[str] = []
    session, transport = await _session()
    session.on_notification = lambda n: seen.append(n.method)
    transport.deliver(jsonrpc.Notification("notifications/tools/list_changed", {}))
    assert seen == ["notifications/tools/list_changed"]
