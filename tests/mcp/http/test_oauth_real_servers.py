"""Signing in for real: the official SDK's server and a FastMCP one as OAuth protected resources
(tests/servers/sdk_http_server.py and fastmcp_http_server.py --oauth) and a strict authorization
server (tests/fakes/oauth_server.py), all on 127.0.0.1, through LevelCode's own connection. Signs
in, lists, calls; an access token that lapsed mid-session is refreshed without the user; a stored
one that lapsed is refreshed before the first request; headless, no sign-in means the exact login
command; the server killed and restarted keeps the sign-in; no token reaches the diagnostics."""

from __future__ import annotations

import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.core.errors import SignInRequired
from levelcode.mcp.config.specs import HttpServerSpec
from levelcode.mcp.http.oauth import requests as oauth_requests
from levelcode.mcp.http.oauth.authorizer import REFRESH_AHEAD_SECONDS
from levelcode.mcp.http.oauth.store import STORE_FILE
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection, connect
from levelcode.mcp.protocol.sign_in import SignIn
from tests.fakes.oauth_server import AuthorizationServer, authorization_server
from tests.mcp.http.support import USER
from tests.support.browser import Browser
from tests.support.http_servers import ServerProcess, fastmcp_server, free_port, running, sdk_server


@pytest.fixture(params=[sdk_server, fastmcp_server], ids=["sdk", "fastmcp"])
def protected(request: pytest.FixtureRequest) -> Iterator[tuple[AuthorizationServer, ServerProcess]]:
    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        server = request.param("--oauth", auth.issuer)
        server.port, server.argv[2] = port, str(port)
        with running(server):
            yield auth, server


async def sign_in_connect(url: str, store: Path, browser: Browser | None) -> McpConnection:
    spec = HttpServerSpec("secured", url, USER)
    options = ConnectOptions(
        workspace=store, sign_in=SignIn(store_dir=store, user_agent=browser, wait_seconds=20)
    )
    return await connect(spec, options)


async def test_sign_in_list_call_then_a_lapsed_token_is_refreshed(
    protected: tuple[AuthorizationServer, ServerProcess], tmp_path: Path
) -> None:
    auth, server = protected
    browser = Browser()
    connection = await sign_in_connect(server.url, tmp_path, browser)
    try:
        assert {"echo", "add"} <= {str(t["name"]) for t in connection.tools}
        assert (await connection.call_tool("echo", {"message": "hi"})).text == "Echo: hi"
        assert [p.issuer for p in browser.prompts] == [auth.issuer]
        assert browser.prompts[0].scope is not None
        assert "mcp" in browser.prompts[0].scope
        auth.expire_access_tokens()
        assert (await connection.call_tool("add", {"a": 2, "b": 3})).text == "2 + 3 = 5"
        assert "POST /token refresh_token" in auth.state.seen
        assert len(browser.prompts) == 1  # refreshed without the user
        assert auth.state.refusals == []
        tokens = list(auth.state.access)
        assert not any(t in line for t in tokens for line in connection.session.diagnostics())
    finally:
        await connection.close()
    stored = tmp_path / STORE_FILE
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) & 0o077 == 0


async def test_a_stored_sign_in_is_used_and_refreshed_before_the_first_request(
    protected: tuple[AuthorizationServer, ServerProcess], tmp_path: Path
) -> None:
    auth, server = protected
    first = await sign_in_connect(server.url, tmp_path, Browser())
    await first.close()
    auth.expire_access_tokens()
    store = tmp_path / STORE_FILE
    store.write_text(store.read_text().replace('"expires_at": ', '"expires_at": 1, "was": '))
    seen = len(auth.state.seen)
    again = await sign_in_connect(server.url, tmp_path, None)  # headless: no browser needed
    try:
        assert (await again.call_tool("echo", {"message": "back"})).text == "Echo: back"
        assert auth.state.seen[seen] == "POST /token refresh_token"  # before anything else
    finally:
        await again.close()


async def test_headless_without_a_sign_in_names_the_login_command(
    protected: tuple[AuthorizationServer, ServerProcess], tmp_path: Path
) -> None:
    auth, server = protected
    with pytest.raises(SignInRequired) as refused:
        await sign_in_connect(server.url, tmp_path, None)
    assert "levelcode mcp login secured" in str(refused.value)
    assert auth.issuer in str(refused.value)
    assert "GET /authorize" not in auth.state.seen  # nobody was sent to sign in


async def test_the_server_restarted_mid_session_keeps_the_sign_in(
    protected: tuple[AuthorizationServer, ServerProcess], tmp_path: Path
) -> None:
    _auth, server = protected
    browser = Browser()
    connection = await sign_in_connect(server.url, tmp_path, browser)
    try:
        server.kill()
        died = await connection.call_tool("echo", {"message": "x"})
        assert died.is_error
        assert died.text.startswith("ERROR: ")
        server.start()
        assert (await connection.call_tool("echo", {"message": "again"})).text == "Echo: again"
        assert len(browser.prompts) == 1
    finally:
        await connection.close()


class LaterClock:
    """The clock the sign-in reads (`time.time`), moved on by `ahead` seconds."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def time(self) -> float:
        return time.time() + self.ahead


async def test_a_token_about_to_lapse_is_renewed_before_it_is_sent(
    protected: tuple[AuthorizationServer, ServerProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth, server = protected
    clock = LaterClock()
    monkeypatch.setattr(oauth_requests, "time", clock)
    connection = await sign_in_connect(server.url, tmp_path, Browser())
    try:
        refreshes = auth.state.seen.count("POST /token refresh_token")
        assert refreshes == 0  # a token just issued is not about to lapse
        issued = set(auth.state.access)
        clock.ahead = auth.state.token_seconds - REFRESH_AHEAD_SECONDS / 2  # it has half a minute left
        assert (await connection.call_tool("echo", {"message": "ahead"})).text == "Echo: ahead"
        assert auth.state.seen.count("POST /token refresh_token") > refreshes  # before the call went out
        assert set(auth.state.access) - issued  # the call carried a token issued by that refresh
    finally:
        await connection.close()
