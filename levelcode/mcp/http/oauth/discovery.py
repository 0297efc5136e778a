"""Finding who signs a server's users in: its protected-resource metadata (from the challenge's
`resource_metadata`, else the well-known URIs), then its authorization server's metadata (RFC 8414
and OpenID Connect, path-inserted then appended), each document checked before use.

Where a server publishes no protected-resource metadata at all, the 2025-03-26 way is followed: its
own origin is the authorization server, with the metadata found at the origin's root (naming the
origin, or an issuer at a path on it: that revision fixes where the document is, not the issuer's
path), else with the default endpoints (`/authorize`, `/token`, `/register` at the origin;
`guessed`) — when its refusal was a Bearer (or DPoP) challenge. A bare 401 without one, or a
guessed registration endpoint that is not there, means the server offers no OAuth sign-in
(`NoSignInOffered`): it wants a token some other way.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2

from levelcode.mcp.http.oauth.metadata import (
    AuthServer,
    OAuthProblem,
    ProtectedResource,
    auth_server_urls,
    canonical_resource,
    fallback_auth_server,
    issuer_on_origin,
    parse_auth_server,
    parse_protected_resource,
    protected_resource_urls,
)
from levelcode.mcp.http.oauth.requests import fetch_document


class NoSignInOffered(OAuthProblem):
    """Neither protected-resource nor authorization-server metadata: not an OAuth server."""


@dataclass(frozen=True)
class Discovered:
    resource: str  # the RFC 8707 `resource` to ask tokens for
    server: AuthServer
    resource_scopes: tuple[str, ...] | None  # the protected resource's scopes_supported
    guessed: bool = False  # 2025-03-26 default endpoints: the server published no metadata at all


async def discover(
    client: httpx2.AsyncClient, server_url: str, resource_metadata: str | None, *, may_guess: bool = False
) -> Discovered:
    """`may_guess`: the refusal challenged for a token, so 2025-03-26's default endpoints may be tried."""
    protected = await find_protected_resource(client, server_url, resource_metadata)
    if protected is None:  # 2025-03-26: the MCP server's origin is its authorization server
        origin = fallback_auth_server(server_url)
        found = await find_auth_server(client, origin.issuer, on_origin=True)
        if found is None and not may_guess:
            raise NoSignInOffered("the server publishes no OAuth metadata")
        if found is None:
            return Discovered(canonical_resource(server_url), origin, None, guessed=True)
        return Discovered(canonical_resource(server_url), found, None)
    issuer = protected.authorization_servers[0]
    found = await find_auth_server(client, issuer)
    if found is None:
        raise OAuthProblem(f"the authorization server {issuer} publishes no OAuth or OpenID metadata")
    return Discovered(protected.resource, found, protected.scopes_supported)


async def find_protected_resource(
    client: httpx2.AsyncClient, server_url: str, resource_metadata: str | None
) -> ProtectedResource | None:
    for url in protected_resource_urls(server_url, resource_metadata):
        doc = await fetch_document(client, url)
        if doc is not None:
            return parse_protected_resource(doc, server_url)
    return None


async def find_auth_server(
    client: httpx2.AsyncClient, issuer: str, *, on_origin: bool = False
) -> AuthServer | None:
    """The first metadata document found, in the spec's order; its issuer must be `issuer` exactly
    — or, with `on_origin` (the 2025-03-26 fallback, where `issuer` is only the server's origin),
    that origin or a path on it."""
    for url in auth_server_urls(issuer):
        doc = await fetch_document(client, url)
        if doc is None:
            continue
        named = issuer_on_origin(doc.get("issuer"), issuer) if on_origin else None
        return parse_auth_server(doc, named or issuer)
    return None
