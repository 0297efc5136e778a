"""A remote server's credentials go to its own origin and nowhere else, and never into an error.

Load-bearing direction: a second listener on another port (another origin) must receive no request
at all, however the first server redirects or points elsewhere, and the secret must appear in no
error text or diagnostics line. The positive controls show the same setup does follow a redirect
within the origin, credentials and all."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from levelcode.core.errors import McpError
from tests.fakes.http_server import Reply, Request, ScriptedHttpServer
from tests.mcp.http.support import SessionServer, connect_to

SECRET = "sk-live-THE-SECRET-VALUE"
ENV = {"API_TOKEN": SECRET}
HEADERS = {"Authorization": "Bearer ${API_TOKEN}"}
Handler = Callable[[Request], Awaitable[Reply]]


def _redirect_to(target: str, status: int = 307) -> Handler:
    async def redirect(request: Request) -> Reply:
        return Reply(status, {"Location": target})

    return redirect


async def _outcome(url: str, tmp_path: Path, hint: str | None = "legacy") -> str:
    """The error a connection attempt ends in (these servers never let one succeed)."""
    try:
        connection = await connect_to(url, tmp_path, headers=HEADERS, env=ENV, hint=hint)  # type: ignore[arg-type]
    except McpError as exc:
        return str(exc)
    await connection.close()
    raise AssertionError("connected")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_to_another_origin_is_not_followed(tmp_path: Path, status: int) -> None:
    elsewhere = await ScriptedHttpServer(SessionServer()).start()
    first = await ScriptedHttpServer(_redirect_to(f"{elsewhere.origin}/mcp", status)).start()
    try:
        error = await _outcome(f"{first.origin}/mcp", tmp_path)
        assert elsewhere.requests == []
        assert first.requests
        assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in first.requests)
        assert "LevelCode does not follow it" in error
        assert SECRET not in error
    finally:
        await first.stop()
        await elsewhere.stop()


async def test_a_legacy_sse_endpoint_on_another_origin_gets_nothing(tmp_path: Path) -> None:
    elsewhere = await ScriptedHttpServer(SessionServer()).start()

    async def stream(request: Request) -> Reply:
        return Reply.events(f"event: endpoint\ndata: {elsewhere.origin}/messages\n\n")

    first = await ScriptedHttpServer(stream).start()
    try:
        with pytest.raises(McpError) as refused:
            await connect_to(f"{first.origin}/sse", tmp_path, headers=HEADERS, env=ENV, legacy_sse=True)
        assert "another origin" in str(refused.value)
        assert SECRET not in str(refused.value)
        assert elsewhere.requests == []
    finally:
        await first.stop()
        await elsewhere.stop()


async def test_a_redirect_within_the_origin_is_followed_with_the_credentials(tmp_path: Path) -> None:
    script = SessionServer()

    async def moved(request: Request) -> Reply:
        if request.path == "/old":
            return Reply(307, {"Location": "/mcp"})
        return await script(request)

    server = await ScriptedHttpServer(moved).start()
    connection = await connect_to(f"{server.origin}/old", tmp_path, headers=HEADERS, env=ENV)
    try:
        assert (await connection.call_tool("echo", {})).text == "echo: {}"
        followed = [r for r in server.requests if r.path == "/mcp"]
        assert followed
        assert all(r.headers["authorization"] == f"Bearer {SECRET}" for r in followed)
    finally:
        await connection.close()
        await server.stop()


def _status(code: int, **headers: str) -> Handler:
    async def answer(request: Request) -> Reply:
        return Reply(
            code, headers, body=f"echoing your header: {request.headers.get('authorization')}".encode()
        )

    return answer


@pytest.mark.parametrize(
    "handler",
    [
        _status(500),
        _status(401, **{"WWW-Authenticate": "Bearer"}),
        _status(403),
        _status(404),
        _status(405),
        _status(200, **{"Content-Type": "text/plain"}),
    ],
    ids=["500", "401", "403", "404", "405", "wrong-type"],
)
async def test_no_error_or_diagnostic_carries_the_secret(tmp_path: Path, handler: Handler) -> None:
    server = await ScriptedHttpServer(handler).start()
    try:
        error = await _outcome(f"{server.origin}/mcp?token={SECRET}", tmp_path, hint=None)
        assert SECRET not in error
        assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    finally:
        await server.stop()


async def test_a_failed_call_carries_no_secret_in_its_error_or_diagnostics(tmp_path: Path) -> None:
    async def failing(request: Request, message: dict[str, object]) -> Reply:
        return Reply(500, body=SECRET.encode())

    server = await ScriptedHttpServer(SessionServer(failing)).start()
    connection = await connect_to(f"{server.origin}/mcp?key={SECRET}", tmp_path, headers=HEADERS, env=ENV)
    try:
        failed = await connection.call_tool("echo", {"password": SECRET})
        assert failed.is_error
        assert "HTTP 500" in failed.text
        assert SECRET not in failed.text
        assert not [line for line in connection.session.diagnostics() if SECRET in line]
    finally:
        await connection.close()
        await server.stop()
