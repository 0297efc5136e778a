"""The Streamable HTTP transport against scripted servers on 127.0.0.1: sessions the server forgets,
answer streams that break off and resume, the server's own GET stream, size caps, refusals.
Each failure costs one clean `ERROR:` string, never a hang."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from levelcode.core.errors import AuthorizationRequired, RemoteError, TransportError
from levelcode.mcp.protocol.transport import AuthChallenge
from tests.fakes.http_server import Reply, Request, ScriptedHttpServer, sse
from tests.mcp.http.support import SessionServer, connect_to, text


async def test_a_session_the_server_forgot_is_started_again_once(tmp_path: Path) -> None:
    script = SessionServer()
    server = await ScriptedHttpServer(script).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        assert (await connection.call_tool("echo", {"n": 1})).text == "echo: {'n': 1}"
        script.live.clear()  # expired, or the server restarted
        assert (await connection.call_tool("echo", {"n": 2})).text == "echo: {'n': 2}"
        initializes = [
            r for r in server.requests if r.method == "POST" and r.json().get("method") == "initialize"
        ]
        assert len(initializes) == 2
        assert "mcp-session-id" not in initializes[1].headers
        last = server.requests[-1]
        assert last.headers["mcp-session-id"] == "session-2"
        assert last.headers["mcp-protocol-version"] == "2025-11-25"
    finally:
        await connection.close()
        await server.stop()


async def test_a_session_that_cannot_be_renewed_is_a_clean_error(tmp_path: Path) -> None:
    script = SessionServer()
    server = await ScriptedHttpServer(script).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        script.live.clear()
        script.refuse_new_sessions = True
        failed = await connection.call_tool("echo", {})
        assert failed.is_error
        assert failed.text.startswith("ERROR: remote/echo: the server ended the session (HTTP 404)")
        assert "last HTTP exchanges:" in failed.text
        assert "→ 404" in failed.text
    finally:
        await connection.close()
        await server.stop()


async def test_close_ends_the_session_with_delete(tmp_path: Path) -> None:
    script = SessionServer()
    server = await ScriptedHttpServer(script).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    await connection.close()
    await server.stop()
    assert server.requests[-1].method == "DELETE"
    assert server.requests[-1].headers["mcp-session-id"] == "session-1"
    assert script.live == set()


async def test_an_answer_stream_that_breaks_off_is_resumed_from_the_last_event(tmp_path: Path) -> None:
    async def dropped(request: Request, message: dict[str, object]) -> Reply:
        return Reply.events(sse(event_id="e1", retry=20))  # a priming event, then the stream ends

    script = SessionServer(dropped)
    resumed: list[Request] = []

    async def get_stream(request: Request) -> Reply:
        if "last-event-id" not in request.headers:
            return Reply(405)  # no standalone stream
        resumed.append(request)
        call = next(
            r for r in reversed(server.requests) if r.method == "POST" and "tools/call" in r.body.decode()
        )
        return Reply.events(sse(text(call.json(), "resumed"), event_id="e2"))

    script.get_stream = get_stream
    server = await ScriptedHttpServer(script).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        assert (await connection.call_tool("echo", {})).text == "resumed"
        assert [r.headers["last-event-id"] for r in resumed] == ["e1"]
        assert resumed[0].headers["mcp-session-id"] == "session-1"
    finally:
        await connection.close()
        await server.stop()


async def test_resuming_gives_up_after_a_bounded_number_of_tries(tmp_path: Path) -> None:
    async def dropped(request: Request, message: dict[str, object]) -> Reply:
        return Reply.events(sse(event_id="e1", retry=10))

    script = SessionServer(dropped)
    attempts: list[str] = []

    async def never_answers(request: Request) -> Reply:
        if "last-event-id" in request.headers:
            attempts.append(request.headers["last-event-id"])
            return Reply.events(sse(event_id="e9"))
        return Reply(405)

    script.get_stream = never_answers
    server = await ScriptedHttpServer(script).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        failed = await connection.call_tool("echo", {})
        assert failed.is_error
        assert "could not be resumed (tried 3 times)" in failed.text
        assert attempts == ["e1", "e9", "e9"]
    finally:
        await connection.close()
        await server.stop()


async def test_a_stream_closed_without_an_event_id_fails_that_call_only(tmp_path: Path) -> None:
    calls = 0

    async def flaky(request: Request, message: dict[str, object]) -> Reply:
        nonlocal calls
        calls += 1
        if calls == 1:
            return Reply.events()  # an event stream that ends at once, nothing to resume from
        return Reply.json(text(message, "fine"))

    server = await ScriptedHttpServer(SessionServer(flaky)).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        failed = await connection.call_tool("echo", {})
        assert failed.text.startswith(
            "ERROR: remote/echo: the server closed the answer stream without answering"
        )
        assert (await connection.call_tool("echo", {})).text == "fine"
    finally:
        await connection.close()
        await server.stop()


async def test_the_servers_own_requests_on_the_get_stream_are_answered_by_post(tmp_path: Path) -> None:
    script = SessionServer()
    hold = asyncio.Event()
    answered = asyncio.Event()

    async def get_stream(request: Request) -> Reply:
        ping = {"jsonrpc": "2.0", "id": "server-1", "method": "roots/list"}
        return Reply.events(sse(ping, event_id="g1"), hold=hold)

    async def on_call(request: Request, message: dict[str, object]) -> Reply:
        return Reply.json(text(message, "ok"))

    script.get_stream = get_stream
    script.on_call = on_call

    async def watching(request: Request) -> Reply:
        reply = await script(request)
        if request.method == "POST" and b'"server-1"' in request.body:
            answered.set()
        return reply

    server = await ScriptedHttpServer(watching).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        async with asyncio.timeout(10):
            await answered.wait()
        reply = next(r for r in server.requests if b'"server-1"' in r.body)
        assert reply.json() == {"jsonrpc": "2.0", "id": "server-1", "result": {"roots": []}}
        assert reply.headers["mcp-session-id"] == "session-1"
    finally:
        hold.set()
        await connection.close()
        await server.stop()


async def test_an_answer_over_the_size_cap_fails_the_call_not_the_connection(tmp_path: Path) -> None:
    async def huge(request: Request, message: dict[str, object]) -> Reply:
        if message["params"].get("arguments") == {"big": True}:  # type: ignore[union-attr]
            return Reply.json(text(message, "x" * 5000))
        return Reply.json(text(message, "small"))

    server = await ScriptedHttpServer(SessionServer(huge)).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path, max_message_bytes=2048)
    try:
        failed = await connection.call_tool("echo", {"big": True})
        assert failed.is_error
        assert "larger than the 2048 byte limit" in failed.text
        assert (await connection.call_tool("echo", {})).text == "small"
    finally:
        await connection.close()
        await server.stop()


async def test_an_event_over_the_size_cap_fails_the_call(tmp_path: Path) -> None:
    async def huge(request: Request, message: dict[str, object]) -> Reply:
        return Reply.events(sse(text(message, "y" * 5000), event_id="1"))

    server = await ScriptedHttpServer(SessionServer(huge)).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path, max_message_bytes=2048)
    try:
        failed = await connection.call_tool("echo", {})
        assert failed.is_error
        assert "larger than the 2048 byte limit" in failed.text
    finally:
        await connection.close()
        await server.stop()


async def test_a_refusal_goes_to_the_auth_hook_and_is_retried_once_with_its_headers(tmp_path: Path) -> None:
    script = SessionServer()

    async def guarded(request: Request) -> Reply:
        if request.headers.get("authorization") != "Bearer fresh":
            return Reply(401, {"WWW-Authenticate": 'Bearer resource_metadata="x"'})
        return await script(request)

    challenges: list[AuthChallenge] = []

    async def sign_in(challenge: AuthChallenge) -> dict[str, str]:
        challenges.append(challenge)
        return {"Authorization": "Bearer fresh"}

    server = await ScriptedHttpServer(guarded).start()
    connection = await connect_to(f"{server.origin}/mcp?key=abc", tmp_path, authorize=sign_in)
    try:
        assert (await connection.call_tool("echo", {})).text == "echo: {}"
        assert challenges[0].status == 401
        assert challenges[0].url == f"{server.origin}/mcp"
        assert challenges[0].www_authenticate == 'Bearer resource_metadata="x"'
    finally:
        await connection.close()
        await server.stop()


async def test_without_a_sign_in_a_refusal_says_what_to_do(tmp_path: Path) -> None:
    async def refuse(request: Request) -> Reply:
        return Reply(401)

    server = await ScriptedHttpServer(refuse).start()
    try:
        with pytest.raises(AuthorizationRequired) as refused:
            await connect_to(f"{server.origin}/mcp", tmp_path, hint=None)
        assert "requires authorization (HTTP 401)" in str(refused.value)
        assert '"Authorization": "Bearer ${TOKEN}"' in str(refused.value)
        posts = [r for r in server.requests if r.method == "POST"]
        assert len(posts) == 1  # no second attempt without new credentials
        looked = [r.path for r in server.requests if r.method == "GET"]  # OAuth metadata: none there
        assert looked == [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ]
    finally:
        await server.stop()


async def test_an_initialize_refused_with_a_json_rpc_error_reports_it_without_the_sse_fallback(
    tmp_path: Path,
) -> None:
    async def refuse(request: Request) -> Reply:
        message = request.json()
        error = {"code": -32602, "message": "Unsupported protocol version: try 2024-01-01"}
        return Reply.json({"jsonrpc": "2.0", "id": message.get("id"), "error": error}, status=400)

    server = await ScriptedHttpServer(refuse).start()
    try:
        with pytest.raises(RemoteError) as refused:
            await connect_to(f"{server.origin}/mcp", tmp_path)
        assert "Unsupported protocol version" in str(refused.value)
        assert [r.method for r in server.requests] == ["POST"]  # no GET for an SSE endpoint
    finally:
        await server.stop()


async def test_an_initialize_refused_without_json_rpc_tries_the_legacy_sse_transport(tmp_path: Path) -> None:
    async def not_here(request: Request) -> Reply:
        return Reply(405 if request.method == "POST" else 404)

    server = await ScriptedHttpServer(not_here).start()
    try:
        with pytest.raises(TransportError) as neither:
            await connect_to(f"{server.origin}/mcp", tmp_path)
        assert "neither a Streamable HTTP nor an HTTP+SSE server answers at this URL (GET → HTTP 404" in str(
            neither.value
        )
        assert [r.method for r in server.requests] == ["POST", "GET"]
    finally:
        await server.stop()


async def test_the_get_stream_reconnects_from_its_last_event_after_a_drop(tmp_path: Path) -> None:
    script = SessionServer()
    streams: list[Request] = []
    second = asyncio.Event()
    hold = asyncio.Event()

    async def get_stream(request: Request) -> Reply:
        streams.append(request)
        if len(streams) == 1:
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "x"},
            }
            return Reply.events(sse(note, event_id="g1", retry=20))  # then the stream drops
        second.set()
        return Reply.events(sse(event_id="g2"), hold=hold)

    script.get_stream = get_stream
    server = await ScriptedHttpServer(script).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path)
    try:
        async with asyncio.timeout(10):
            await second.wait()
        assert "last-event-id" not in streams[0].headers
        assert streams[1].headers["last-event-id"] == "g1"
        assert streams[1].headers["mcp-session-id"] == "session-1"
    finally:
        hold.set()
        await connection.close()
        await server.stop()


async def test_an_unexpected_failure_inside_a_request_ends_that_request_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = await ScriptedHttpServer(SessionServer()).start()
    connection = await connect_to(f"{server.origin}/mcp", tmp_path, call_timeout=60.0)
    try:

        async def broken(*args: object, **kwargs: object) -> bytes:
            raise RuntimeError("a bug")

        monkeypatch.setattr("levelcode.mcp.http.post_exchange.read_capped", broken)
        async with asyncio.timeout(10):  # well inside the call's own 60 s
            failed = await connection.call_tool("echo", {})
        assert failed.text.startswith("ERROR: remote/echo: the request failed (RuntimeError)")
    finally:
        await connection.close()
        await server.stop()
