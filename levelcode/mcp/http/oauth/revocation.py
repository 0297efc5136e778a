"""Token revocation at sign-out (RFC 7009): the refresh token first (revoking it ends the grant,
RFC 7009 §2.1), then the access token, at the revocation endpoint of the authorization server
that issued them — the one its metadata named when the user signed in, else the one it names now.

I/O at the edge, through the sign-in's guarded client (the address guard: a remote server's
authorization server cannot send LevelCode to an internal address). Never raises: what happened
is returned in words for the user, and the caller deletes the local copy whatever the outcome.
Never puts a token in those words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import httpx2

from levelcode.mcp.http.oauth.address_guard import Resolve
from levelcode.mcp.http.oauth.discovery import find_auth_server
from levelcode.mcp.http.oauth.grant import Client, client_authentication
from levelcode.mcp.http.oauth.metadata import OAuthProblem, acceptable_endpoint
from levelcode.mcp.http.oauth.registration import client_from_record
from levelcode.mcp.http.oauth.requests import oauth_client, revoke_token
from levelcode.mcp.http.oauth.token_records import server_of, tokens_of

REVOKED, NOT_OFFERED, FAILED = "revoked", "not offered", "failed"


@dataclass(frozen=True)
class Revocation:
    issuer: str
    outcome: str  # REVOKED, NOT_OFFERED or FAILED
    reason: str = ""  # for FAILED: why, in words for the user


async def revoke_sign_in(
    record: Mapping[str, object], client: Client | None = None, *, resolve: Resolve | None = None
) -> Revocation:
    """Revoke what `record` holds. `client`: the one configured for the server, if it still is;
    else the one the record registered."""
    server = server_of(record)
    tokens = tokens_of(record)
    client = client or client_from_record(_mapping(record.get("client"))) or Client("")
    if tokens is None:
        return Revocation(server.issuer, NOT_OFFERED)
    try:
        async with oauth_client(str(record.get("resource") or server.issuer), resolve) as http:
            endpoint = server.revocation_endpoint or await _endpoint_named_now(http, server.issuer)
            if endpoint is None:
                return Revocation(server.issuer, NOT_OFFERED)
            for token, hint in (
                (tokens.refresh_token, "refresh_token"),
                (tokens.access_token, "access_token"),
            ):
                if token:
                    form, headers = client_authentication(
                        client, server, {"token": token, "token_type_hint": hint}
                    )
                    await revoke_token(http, endpoint, form, headers)
    except OAuthProblem as exc:
        return Revocation(server.issuer, FAILED, str(exc))
    return Revocation(server.issuer, REVOKED)


async def _endpoint_named_now(http: httpx2.AsyncClient, issuer: str) -> str | None:
    """A sign-in kept before its revocation endpoint was recorded: ask the issuer's metadata."""
    found = await find_auth_server(http, issuer)
    endpoint = found.revocation_endpoint if found is not None else None
    return endpoint if endpoint is not None and acceptable_endpoint(endpoint) else None


def _mapping(value: object) -> Mapping[str, object] | None:
    return value if isinstance(value, Mapping) else None
