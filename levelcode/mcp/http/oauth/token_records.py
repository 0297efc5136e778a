"""What a kept sign-in looks like in the credential store, and back: one record per server, resource
and authorization server (issuer), holding the tokens, the client registered there, the issuer's
endpoints that later requests need (token, revocation) and the DPoP key the tokens are bound to.

No I/O of its own: plain dicts in and out. The record is secret (tokens, keys): never logged or shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from levelcode.mcp.http.oauth.challenge import BearerChallenge
from levelcode.mcp.http.oauth.discovery import Discovered
from levelcode.mcp.http.oauth.grant import select_scope, step_up_scope
from levelcode.mcp.http.oauth.metadata import AuthServer
from levelcode.mcp.http.oauth.requests import Tokens

Record = dict[str, Any]


def tokens_of(record: Mapping[str, object] | None) -> Tokens | None:
    doc = record.get("tokens") if record else None
    if not isinstance(doc, Mapping) or not isinstance(doc.get("access_token"), str):
        return None
    expires, issued = doc.get("expires_at"), doc.get("issued_at")
    refresh = doc.get("refresh_token")
    return Tokens(
        str(doc["access_token"]),
        refresh if isinstance(refresh, str) else None,
        float(expires) if isinstance(expires, int | float) else None,
        scope_list(doc.get("scope")),
        "DPoP" if doc.get("token_type") == "DPoP" else "Bearer",
        float(issued) if isinstance(issued, int | float) else None,  # None: kept before it was
    )


def tokens_record(tokens: Tokens) -> dict[str, Any]:
    return {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "expires_at": tokens.expires_at,
        "scope": list(tokens.scope) if tokens.scope is not None else None,
        "token_type": tokens.token_type,
        "issued_at": tokens.issued_at,
    }


def with_tokens(record: Record, tokens: Tokens, previous: Tokens | None) -> Record:
    """The record after a refresh: a refresh token that was not rotated stays the one to use."""
    if tokens.refresh_token is None and previous is not None and previous.refresh_token:
        tokens = dataclasses.replace(tokens, refresh_token=previous.refresh_token)
    return {**record, "tokens": tokens_record(tokens)}


def server_of(record: Mapping[str, object]) -> AuthServer:
    """The authorization server the record belongs to, as far as its later requests need it."""
    methods = record.get("token_auth_methods")
    revocation = record.get("revocation_endpoint")
    return AuthServer(
        issuer=str(record.get("issuer")),
        authorization_endpoint="",
        token_endpoint=str(record.get("token_endpoint")),
        token_auth_methods=tuple(methods) if isinstance(methods, list) else None,
        revocation_endpoint=revocation if isinstance(revocation, str) else None,
    )


def new_record(
    *, server: str, resource: str, auth_server: AuthServer, client: Mapping[str, Any] | None
) -> Record:
    return {
        "server": server,
        "resource": resource,
        "issuer": auth_server.issuer,
        "token_endpoint": auth_server.token_endpoint,
        "revocation_endpoint": auth_server.revocation_endpoint,
        "token_auth_methods": list(auth_server.token_auth_methods or ()) or None,
        "client": client,
    }


def scope_list(value: object) -> tuple[str, ...] | None:
    return tuple(str(v) for v in value) if isinstance(value, list) and value else None


def sign_in_scope(
    parsed: BearerChallenge,
    found: Discovered,
    record: Mapping[str, object],
    configured: tuple[str, ...] | None,
) -> tuple[str, ...] | None:
    """What a sign-in asks for: a step-up adds the challenge's scopes to those asked before; a new
    sign-in chooses by the spec's order and keeps what was granted (and what a step-up wanted)."""
    previous = scope_list(record.get("requested_scope"))
    wanted = scope_list(record.get("wanted_scope"))
    if parsed.insufficient_scope:
        return step_up_scope(previous or configured, parsed.scope or ())
    chosen = select_scope(parsed.scope, found.resource_scopes, found.server, configured)
    if previous or wanted:
        chosen = step_up_scope((*(previous or ()), *(wanted or ())), chosen or ())
    return chosen
