"""Sign-ins keyed by the authorization server that issued them (its issuer). A protected server on
127.0.0.1 whose protected-resource metadata names authorization server A, then B, then A again
(a migration, and its rollback), each a strict authorization server that knows only its own
clients and tokens. Load-bearing direction: nothing of A's sign-in (its client, its refresh token,
its access token at its token endpoint) is presented to B — B's server refuses nothing and sees no
refresh — and A's sign-in is kept apart, so moving back to A refreshes there without the user.
(Before sign-ins were keyed by issuer, B's sign-in replaced A's and moving back asked the user
again.) RFC 9207's `iss` check on the authorization response is covered by the conformance
scenarios auth/iss-* and tests/mcp/http/oauth/test_grant.py."""

from __future__ import annotations

import time
from pathlib import Path

from levelcode.mcp.http.oauth.store import STORE_FILE
from tests.fakes.http_server import Reply, Request, ScriptedHttpServer
from tests.fakes.oauth_server import AuthorizationServer, authorization_server
from tests.mcp.http.support import SessionServer
from tests.mcp.http.test_oauth_real_servers import sign_in_connect
from tests.support.browser import Browser


class ProtectedServer:
    """An MCP server that takes only tokens of the authorization server it names now."""

    def __init__(self) -> None:
        self.mcp = SessionServer()
        self.trusted: AuthorizationServer | None = None
        self.origin = ""

    async def __call__(self, request: Request) -> Reply:
        assert self.trusted is not None
        if request.path == "/.well-known/oauth-protected-resource/mcp":
            return Reply.json(
                {"resource": f"{self.origin}/mcp", "authorization_servers": [self.trusted.issuer]}
            )
        if request.path != "/mcp":
            return Reply(404)
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        with self.trusted.state.lock:
            grant = self.trusted.state.access.get(token)
        if grant is None or grant.expires_at < time.time():
            challenge = f'Bearer resource_metadata="{self.origin}/.well-known/oauth-protected-resource/mcp"'
            return Reply.json({"error": "invalid_token"}, 401, **{"WWW-Authenticate": challenge})
        return await self.mcp(request)


async def test_a_migration_and_its_rollback_keep_each_issuers_sign_in_to_itself(tmp_path: Path) -> None:
    protected = ProtectedServer()
    server = await ScriptedHttpServer(protected).start()
    protected.origin = server.origin
    resource = f"{server.origin}/mcp"
    browser = Browser()
    try:
        with (
            authorization_server(resource=resource) as first,
            authorization_server(resource=resource) as second,
        ):
            protected.trusted = first
            connection = await sign_in_connect(resource, tmp_path, browser)
            try:
                assert "echo" in (await connection.call_tool("echo", {"n": 1})).text
                first_refresh = set(first.state.refresh)

                protected.trusted = second  # the server moved to another authorization server
                assert "echo" in (await connection.call_tool("echo", {"n": 2})).text
                assert [p.issuer for p in browser.prompts] == [first.issuer, second.issuer]
                assert second.state.refusals == []  # no client of A was presented to B
                assert "POST /token refresh_token" not in second.state.seen  # nor A's refresh token
                assert not set(second.state.refresh) & first_refresh

                protected.trusted = first  # and back: A's sign-in is still there, refreshed at A
                first.expire_access_tokens()
                assert "echo" in (await connection.call_tool("echo", {"n": 3})).text
                assert len(browser.prompts) == 2  # the user was not asked again
                assert "POST /token refresh_token" in first.state.seen
                assert first.state.refusals == []
            finally:
                await connection.close()
            kept = (tmp_path / STORE_FILE).read_text()
            assert first.issuer in kept
            assert second.issuer in kept
    finally:
        await server.stop()
