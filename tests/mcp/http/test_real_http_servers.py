"""Real remote servers on 127.0.0.1 through LevelCode's own connection: server-everything in its
Streamable HTTP and SSE modes, servers built with the official Python SDK (2026-07-28 by
default, even over the legacy SSE transport; sessions when spoken to the 2025-11-25 way; JSON
answers), and FastMCP ones (Streamable HTTP and SSE). Signing in is in test_oauth_real_servers.py.
Each connects, lists, calls; a server killed mid-session costs one clean `ERROR:` and, once it is
back, the next call works."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.mcp.protocol.handshake import Era
from tests.mcp.http.support import connect_to
from tests.support.http_servers import ServerProcess, everything, fastmcp_server, running, sdk_server

EVERYTHING_TOOLS = {"echo", "get-sum", "get-tiny-image"}
SDK_TOOLS = {"echo", "add", "whoami"}
FASTMCP_TOOLS = {"echo", "add"}


@pytest.mark.parametrize(
    ("make", "legacy_sse", "hint", "era", "tools"),
    [
        pytest.param(
            lambda: everything("streamableHttp"), False, None, "legacy", EVERYTHING_TOOLS, id="everything"
        ),
        pytest.param(lambda: everything("sse"), True, None, "legacy", EVERYTHING_TOOLS, id="everything-sse"),
        pytest.param(
            lambda: everything("sse"), False, None, "legacy", EVERYTHING_TOOLS, id="everything-sse-fallback"
        ),
        pytest.param(sdk_server, False, None, "modern", SDK_TOOLS, id="sdk"),
        pytest.param(sdk_server, False, "legacy", "legacy", SDK_TOOLS, id="sdk-2025-11-25"),
        pytest.param(lambda: sdk_server("--json"), False, "modern", "modern", SDK_TOOLS, id="sdk-json"),
        pytest.param(lambda: sdk_server("--stateless"), False, None, "modern", SDK_TOOLS, id="sdk-stateless"),
        pytest.param(lambda: sdk_server("--sse"), True, None, "modern", SDK_TOOLS, id="sdk-sse"),
        pytest.param(
            lambda: sdk_server("--sse"), False, "legacy", "legacy", SDK_TOOLS, id="sdk-sse-fallback"
        ),
        pytest.param(fastmcp_server, False, None, "modern", FASTMCP_TOOLS, id="fastmcp"),
        pytest.param(lambda: fastmcp_server("--sse"), True, None, "modern", FASTMCP_TOOLS, id="fastmcp-sse"),
    ],
)
async def test_connect_list_call(
    tmp_path: Path, make: object, legacy_sse: bool, hint: Era | None, era: Era, tools: set[str]
) -> None:
    assert callable(make)
    with running(make()) as server:
        connection = await connect_to(server.url, tmp_path, hint=hint, legacy_sse=legacy_sse)
        try:
            assert connection.info.era == era
            assert tools <= {str(tool["name"]) for tool in connection.tools}
            assert (await connection.call_tool("echo", {"message": "hi"})).text == "Echo: hi"
            wrong = await connection.call_tool("no-such-tool", {})
            assert wrong.is_error
            assert wrong.text.startswith("ERROR: ")
        finally:
            await connection.close()


async def test_headers_reach_the_server_expanded(tmp_path: Path) -> None:
    with running(sdk_server(env={"EXPECTED_API_KEY": "k-123"})) as server:
        connection = await connect_to(
            server.url, tmp_path, headers={"X-Api-Key": "${SERVER_KEY}"}, env={"SERVER_KEY": "k-123"}
        )
        try:
            assert (await connection.call_tool("whoami", {})).text == "key ok"
        finally:
            await connection.close()


@pytest.mark.parametrize(
    ("make", "hint"),
    [
        pytest.param(sdk_server, "legacy", id="sdk-session"),
        pytest.param(sdk_server, None, id="sdk-2026-07-28"),
        pytest.param(lambda: everything("streamableHttp"), "legacy", id="everything-session"),
        pytest.param(fastmcp_server, None, id="fastmcp"),
    ],
)
async def test_a_server_restarted_mid_session(tmp_path: Path, make: object, hint: Era | None) -> None:
    assert callable(make)
    server: ServerProcess = make()
    with running(server):
        connection = await connect_to(server.url, tmp_path, hint=hint)
        try:
            assert (await connection.call_tool("echo", {"message": "one"})).text == "Echo: one"
            server.kill()
            down = await connection.call_tool("echo", {"message": "two"})
            assert down.is_error
            assert down.text.startswith("ERROR: remote/echo: POST ")
            assert "cannot connect (connection refused)" in down.text
            server.start()
            assert (await connection.call_tool("echo", {"message": "three"})).text == "Echo: three"
        finally:
            await connection.close()


async def test_a_legacy_sse_server_that_dies_ends_the_connection_cleanly(tmp_path: Path) -> None:
    server = everything("sse")
    with running(server):
        connection = await connect_to(server.url, tmp_path, legacy_sse=True)
        try:
            server.kill()
            gone = await connection.call_tool("echo", {"message": "x"})
            assert gone.is_error
            assert gone.text.startswith("ERROR: remote/echo: ")
        finally:
            await connection.close()
