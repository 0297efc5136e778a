"""Discovery for a 2025-03-26 server, which publishes no protected-resource metadata: its origin is
its authorization server, whose metadata that revision puts at the origin's root whatever the
issuer's path. Load-bearing direction: a document there that names an issuer anywhere but this
origin (another host, port or scheme, a host spelled otherwise, a query or fragment) is refused
whole, and an authorization server found through protected-resource metadata must still name
exactly the issuer it was asked for. The second corpus: the origin itself, with or without a
trailing slash, or a path on it (an authorization server mounted under `/oauth`, as the
conformance suite's 0.1 line serves it) is used, with the endpoints and issuer it names."""

from __future__ import annotations

import httpx2
import pytest

from levelcode.mcp.http.oauth.discovery import discover
from levelcode.mcp.http.oauth.metadata import OAuthProblem

SERVER = "https://mcp.example.com/v1/mcp"
ORIGIN = "https://mcp.example.com"
AUTH = "https://auth.example.com/tenant1"


def _metadata(issuer: str) -> dict[str, object]:
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer.rstrip('/')}/authorize",
        "token_endpoint": f"{issuer.rstrip('/')}/token",
        "registration_endpoint": f"{issuer.rstrip('/')}/register",
        "code_challenge_methods_supported": ["S256"],
    }


def _client(documents: dict[str, dict[str, object]]) -> httpx2.AsyncClient:
    def answer(request: httpx2.Request) -> httpx2.Response:
        doc = documents.get(str(request.url))
        return httpx2.Response(404) if doc is None else httpx2.Response(200, json=doc)

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer))


def _legacy(issuer: str) -> httpx2.AsyncClient:
    return _client({f"{ORIGIN}/.well-known/oauth-authorization-server": _metadata(issuer)})


@pytest.mark.parametrize(
    "issuer",
    [
        "https://attacker.example.com",
        "https://attacker.example.com/oauth",
        "https://mcp.example.com.attacker.example/oauth",
        "https://mcp.example.com@attacker.example.com/oauth",
        "https://mcp.example.com:8443/oauth",
        "http://mcp.example.com/oauth",
        "https://MCP.example.com/oauth",
        "https://mcp.example.com/oauth?tenant=1",
        "https://mcp.example.com/oauth#x",
        "mcp.example.com/oauth",
        "",
    ],
)
async def test_legacy_metadata_naming_another_origin_is_refused(issuer: str) -> None:
    async with _legacy(issuer) as client:
        with pytest.raises(OAuthProblem, match="names issuer"):
            await discover(client, SERVER, None, may_guess=True)


@pytest.mark.parametrize("issuer", [ORIGIN, ORIGIN + "/", ORIGIN + "/oauth", ORIGIN + "/v1/oauth/"])
async def test_legacy_metadata_naming_this_origin_or_a_path_on_it_is_used(issuer: str) -> None:
    async with _legacy(issuer) as client:
        found = await discover(client, SERVER, None, may_guess=True)
    assert found.server.issuer == issuer
    assert found.server.authorization_endpoint == f"{issuer.rstrip('/')}/authorize"
    assert found.server.token_endpoint == f"{issuer.rstrip('/')}/token"
    assert found.resource == SERVER
    assert not found.guessed


async def test_an_authorization_server_named_by_the_resource_must_name_itself_exactly() -> None:
    documents = {
        f"{ORIGIN}/.well-known/oauth-protected-resource/v1/mcp": {
            "resource": SERVER,
            "authorization_servers": [AUTH],
        },
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1": _metadata(AUTH + "/sub"),
    }
    async with _client(documents) as client:
        with pytest.raises(OAuthProblem, match="names issuer"):
            await discover(client, SERVER, None)
