"""Which OAuth client LevelCode is at an authorization server, in the spec's order: the one you
pre-registered (the entry's `oauth.clientId`), a client ID metadata document you host (when the
server supports them), one registered before with this same server, else dynamic registration.

Registrations are bound to the issuer that made them (2026-07-28 "authorization server binding"):
a client of one authorization server is never presented to another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2

from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.http.oauth.grant import Client
from levelcode.mcp.http.oauth.jwt_signing import SigningKey
from levelcode.mcp.http.oauth.metadata import AuthServer, OAuthProblem
from levelcode.mcp.http.oauth.requests import register_client

CLIENT_NAME = "LevelCode"


def configured_client(
    entry: OAuthEntry | None, secret: str | None, server: AuthServer, key: SigningKey | None = None
) -> Client | None:
    """`key`: the entry's private key (oauth.privateKeyFile), loaded, for private_key_jwt."""
    if entry is not None and entry.client_id:
        return Client(entry.client_id, secret, entry.grants.client_auth, assertion_key=key)
    if entry is not None and entry.client_metadata_url and server.client_id_metadata_document_supported:
        return Client(entry.client_metadata_url, None, "none")
    return None


async def registered_client(
    http: httpx2.AsyncClient, server: AuthServer, redirect_uri: str, scope: tuple[str, ...] | None
) -> Client:
    if not server.registration_endpoint:
        raise OAuthProblem(
            f"the authorization server {server.issuer} offers no dynamic registration and LevelCode has "
            'no client there: register one and put it in the entry, "oauth": {"clientId": "…"}'
        )
    metadata: dict[str, object] = {
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",  # a CLI on this machine with a loopback redirect
    }
    if scope:
        metadata["scope"] = " ".join(scope)
    registered = await register_client(http, server.registration_endpoint, metadata)
    return (
        registered
        if registered.redirect_uri
        else Client(**{**_fields(registered), "redirect_uri": redirect_uri})
    )


def client_record(client: Client) -> dict[str, Any]:
    return _fields(client)


def client_from_record(record: Mapping[str, object] | None) -> Client | None:
    if not isinstance(record, Mapping) or not isinstance(record.get("client_id"), str):
        return None
    return Client(
        str(record["client_id"]),
        _optional(record.get("client_secret")),
        _optional(record.get("auth_method")),
        _optional(record.get("redirect_uri")),
    )


def _fields(client: Client) -> dict[str, Any]:
    return {
        "client_id": client.client_id,
        "client_secret": client.client_secret,
        "auth_method": client.auth_method,
        "redirect_uri": client.redirect_uri,
    }


def _optional(value: object) -> str | None:
    return value if isinstance(value, str) else None
