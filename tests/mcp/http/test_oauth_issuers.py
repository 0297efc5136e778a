"""Sign-ins keyed by the authorization server that issued them (its issuer). A protected server on
127.0.0.1 whose protected-resource metadata names authorization server A, then B, then A again
(a migration, and its rollback), each a strict authorization server that knows only its own
clients and tokens. Load-bearing direction: nothing of A's sign-in (its client, its refresh token,
its access token at its token endpoint) is presented to B — B's server refuses nothing and sees no
refresh — and A's sign-in is kept apart, so moving back to A refreshes there without the user.
(Before sign-ins were keyed by issuer, B's sign-in replaced A's and moving back asked the user
again.) A sign-in kept before records were keyed by issuer (one record per server and URL) is
used only at the issuer it names: found again while the server still names that one, never
presented to another. RFC 9207's `iss` check on the authorization response is covered by the
conformance scenarios auth/iss-* and tests/mcp/http/oauth/test_grant.py."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

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


@pytest.fixture
async def protected() -> AsyncIterator[ProtectedServer]:
    protected = ProtectedServer()
    server = await ScriptedHttpServer(protected).start()
    protected.origin = server.origin
    yield protected
    await server.stop()


async def kept_the_old_way(protected: ProtectedServer, first: AuthorizationServer, store: Path) -> str:
    """A sign-in at `first`, then the store rewritten as it was kept before issuers: the record
    under the server and URL alone, and no note of which issuer the server uses now."""
    protected.trusted = first
    connection = await sign_in_connect(f"{protected.origin}/mcp", store, Browser())
    await connection.close()
    doc = json.loads((store / STORE_FILE).read_text())
    [(key, entry)] = doc["servers"].items()
    base, _, issuer = key.rpartition("|")
    assert issuer == first.issuer
    (store / STORE_FILE).write_text(json.dumps({"servers": {base: entry}}))
    return str(entry["record"]["client"]["client_id"])


async def test_a_sign_in_kept_before_issuers_is_never_presented_to_another_issuer(
    protected: ProtectedServer, tmp_path: Path
) -> None:
    resource = f"{protected.origin}/mcp"
    with (
        authorization_server(resource=resource) as first,
        authorization_server(resource=resource) as second,
    ):
        old_client = await kept_the_old_way(protected, first, tmp_path)
        first_refresh, seen_at_first = set(first.state.refresh), len(first.state.seen)

        protected.trusted = second  # the server moved while the old record was kept
        browser = Browser()
        connection = await sign_in_connect(resource, tmp_path, browser)
        try:
            assert "echo" in (await connection.call_tool("echo", {"n": 1})).text
        finally:
            await connection.close()
        assert [p.issuer for p in browser.prompts] == [second.issuer]  # signed in there afresh
        assert old_client not in browser.prompts[0].url  # with a client of its own
        assert second.state.refusals == []
        assert "POST /token refresh_token" not in second.state.seen
        assert not set(second.state.refresh) & first_refresh
        assert first.state.seen[seen_at_first:] == []  # nor was the old sign-in renewed meanwhile


async def test_a_sign_in_kept_before_issuers_is_still_used_at_its_own_issuer(
    protected: ProtectedServer, tmp_path: Path
) -> None:
    resource = f"{protected.origin}/mcp"
    with authorization_server(resource=resource) as first:
        await kept_the_old_way(protected, first, tmp_path)
        first.expire_access_tokens()
        connection = await sign_in_connect(resource, tmp_path, None)  # nobody to ask
        try:
            assert "echo" in (await connection.call_tool("echo", {"n": 1})).text
        finally:
            await connection.close()
        assert "POST /token refresh_token" in first.state.seen
        assert first.state.refusals == []
