"""Shared pieces of the remote-transport tests: a scripted 2025-11-25 server with sessions, and
connecting LevelCode to a URL the way the hub does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from levelcode.mcp.config.specs import HttpServerSpec, Provenance
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection, connect
from levelcode.mcp.protocol.handshake import Era
from tests.fakes.http_server import Reply, Request

USER = Provenance("user", "/test/settings.json")
CallHandler = Callable[[Request, dict[str, object]], Awaitable[Reply]]


def result(message: Mapping[str, object], payload: Mapping[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": message["id"], "result": payload}


def text(message: Mapping[str, object], words: str) -> dict[str, object]:
    return result(message, {"content": [{"type": "text", "text": words}]})


class SessionServer:
    """A 2025-11-25 Streamable HTTP server with sessions and JSON answers; what `tools/call` answers
    is up to `on_call`. Clearing `live` makes it forget every session (404), as a restart does."""

    def __init__(self, on_call: CallHandler | None = None) -> None:
        self.on_call = on_call or self.echo
        self.live: set[str] = set()
        self.started = 0
        self.refuse_new_sessions = False
        self.get_stream: Callable[[Request], Awaitable[Reply]] | None = None

    async def __call__(self, request: Request) -> Reply:
        if request.method == "DELETE":
            self.live.discard(request.headers.get("mcp-session-id", ""))
            return Reply(200)
        if request.method == "GET":
            return await self.get_stream(request) if self.get_stream else Reply(405)
        message = request.json()
        if message.get("method") == "server/discover":
            return Reply.json(
                {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}}
            )
        if message.get("method") == "initialize":
            return self._initialize(message)
        if request.headers.get("mcp-session-id") not in self.live:
            return Reply(404)
        if "method" not in message or "id" not in message:
            return Reply(202)
        if message["method"] == "tools/list":
            tools = [{"name": "echo", "inputSchema": {"type": "object"}}]
            return Reply.json(result(message, {"tools": tools}))
        return await self.on_call(request, message)

    def _initialize(self, message: dict[str, object]) -> Reply:
        if self.refuse_new_sessions and self.started:
            return Reply(500)
        self.started += 1
        session = f"session-{self.started}"
        self.live.add(session)
        answer = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"},
        }
        return Reply.json(result(message, answer), **{"Mcp-Session-Id": session})

    @staticmethod
    async def echo(request: Request, message: dict[str, object]) -> Reply:
        params = message["params"]
        assert isinstance(params, dict)
        return Reply.json(text(message, f"echo: {params['arguments']}"))


async def connect_to(
    url: str,
    workspace: Path,
    *,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    hint: Era | None = "legacy",
    legacy_sse: bool = False,
    **options: object,
) -> McpConnection:
    spec = HttpServerSpec("remote", url, USER, headers=tuple((headers or {}).items()), legacy_sse=legacy_sse)
    settings: dict[str, object] = {"workspace": workspace, "startup_timeout": 10.0, "call_timeout": 10.0}
    settings.update(options)
    return await connect(spec, ConnectOptions(**settings), hint=hint, parent_env=env or {})  # type: ignore[arg-type]
