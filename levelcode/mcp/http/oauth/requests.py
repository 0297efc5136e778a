"""The HTTP side of signing in: metadata documents fetched, token and registration requests sent,
each bounded in time and size, redirects never followed, answers parsed defensively.

I/O at the edge, on httpx2. Never sends the MCP server's configured headers anywhere (an
authorization server is another party); never puts a request body in a message. Every connection
goes through the address guard (address_guard.py): a server that is not itself on this machine
or an internal network cannot send LevelCode to one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx2

from levelcode.mcp.http.oauth.address_guard import AddressGuard, AddressRefused, GuardedTransport, Resolve
from levelcode.mcp.http.oauth.dpop import DPOP_SCHEME, USE_DPOP_NONCE, DpopProver
from levelcode.mcp.http.oauth.grant import Client
from levelcode.mcp.http.oauth.metadata import OAuthProblem
from levelcode.mcp.http.origin import shown_url

MAX_DOCUMENT_BYTES = 256 * 1024
REQUEST_SECONDS = 30.0


class EndpointMissing(OAuthProblem):
    """An endpoint answered 404 or 405: it is not there (a guessed 2025-03-26 default, say)."""


@dataclass(frozen=True)
class Tokens:
    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # epoch seconds
    scope: tuple[str, ...] | None = None  # what was granted, when the server says
    token_type: str = "Bearer"  # or "DPoP": presented with a proof of the sign-in's key
    issued_at: float | None = None  # epoch seconds; with expires_at, how long the token lives

    def lapsing(self, ahead: float, now: float | None = None) -> bool:
        """Within `ahead` seconds of its expiry — or, for a token that lives less than four times
        that, in the last quarter of its life: a 45-second token renewed a minute ahead would be
        renewed before every request, from the moment it was issued."""
        if self.expires_at is None:
            return False
        if self.issued_at is not None:
            ahead = min(ahead, (self.expires_at - self.issued_at) / 4)
        return (now or time.time()) >= self.expires_at - ahead


def oauth_client(
    server_url: str, resolve: Resolve | None = None, reached_at: str | None = None
) -> httpx2.AsyncClient:
    """The client for one MCP server's sign-in (`server_url`, and the address the server's refusal
    came from when known: what decides where it may connect)."""
    transport = GuardedTransport(AddressGuard(server_url, resolve, reached_at))
    return httpx2.AsyncClient(timeout=REQUEST_SECONDS, follow_redirects=False, transport=transport)


async def fetch_document(client: httpx2.AsyncClient, url: str) -> Mapping[str, object] | None:
    """A JSON object from `url`; None when it is not there (4xx), so the next place is tried."""
    response = await _send(client, "GET", url, headers={"Accept": "application/json"})
    if 400 <= response.status_code < 500:
        return None
    if response.status_code != 200:
        raise OAuthProblem(f"GET {shown_url(url)} answered HTTP {response.status_code}")
    return _json_object(response, url)


async def token_request(
    client: httpx2.AsyncClient,
    url: str,
    form: Mapping[str, str],
    headers: Mapping[str, str],
    dpop: DpopProver | None = None,
) -> Tokens:
    return parse_tokens(await token_endpoint_answer(client, url, form, headers, dpop), dpop=dpop is not None)


async def token_endpoint_answer(
    client: httpx2.AsyncClient,
    url: str,
    form: Mapping[str, str],
    headers: Mapping[str, str],
    dpop: DpopProver | None = None,
    *,
    what: str = "the token endpoint",
) -> Mapping[str, object]:
    """The 200 answer's JSON object. With DPoP, every attempt carries a fresh proof, and a
    `use_dpop_nonce` refusal with a new nonce is tried once more with it (RFC 9449 §8)."""
    for _attempt in range(2):
        sent = {**headers, "Accept": "application/json"}
        if dpop is not None:
            sent["DPoP"] = dpop.proof("POST", url)
        response = await _send(client, "POST", url, data=form, headers=sent)
        doc = _json_object(response, url) if response.content else {}
        if response.status_code == 200:
            if dpop is not None:
                dpop.remember_nonce(url, response.headers.get("dpop-nonce"))
            return doc
        new_nonce = dpop is not None and dpop.remember_nonce(url, response.headers.get("dpop-nonce"))
        if not (new_nonce and doc.get("error") == USE_DPOP_NONCE):
            break
    raise OAuthProblem(_refusal(what, response.status_code, doc))


async def revoke_token(
    client: httpx2.AsyncClient, url: str, form: Mapping[str, str], headers: Mapping[str, str]
) -> None:
    """RFC 7009 §2: 200 means revoked (or unknown, which is the same to us); anything else fails."""
    response = await _send(client, "POST", url, data=form, headers={**headers, "Accept": "application/json"})
    if response.status_code != 200:
        doc = _json_object(response, url) if response.content else {}
        raise OAuthProblem(_refusal("the revocation endpoint", response.status_code, doc))


async def register_client(client: httpx2.AsyncClient, url: str, metadata: Mapping[str, object]) -> Client:
    """RFC 7591 dynamic registration."""
    response = await _send(client, "POST", url, json=dict(metadata), headers={"Accept": "application/json"})
    if response.status_code in (404, 405):
        raise EndpointMissing(f"dynamic client registration is not offered at {shown_url(url)}")
    doc = _json_object(response, url) if response.content else {}
    if response.status_code not in (200, 201):
        raise OAuthProblem(_refusal("dynamic client registration", response.status_code, doc))
    client_id = doc.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise OAuthProblem("dynamic client registration answered without a client_id")
    secret, method = doc.get("client_secret"), doc.get("token_endpoint_auth_method")
    return Client(
        client_id,
        secret if isinstance(secret, str) and secret else None,
        method if isinstance(method, str) else None,
        _first(doc.get("redirect_uris")),
    )


def parse_tokens(doc: Mapping[str, object], *, dpop: bool = False) -> Tokens:
    """A token response; a DPoP-bound token only when the request carried a DPoP proof."""
    access = doc.get("access_token")
    kind = doc.get("token_type")
    if not isinstance(access, str) or not access:
        raise OAuthProblem("the token endpoint answered without an access token")
    accepted = ("bearer", "dpop") if dpop else ("bearer",)
    if not isinstance(kind, str) or kind.lower() not in accepted:
        raise OAuthProblem(
            f"the token endpoint issued a {str(kind)[:20]!r} token; LevelCode uses "
            + ("Bearer and DPoP tokens" if dpop else "Bearer tokens (DPoP only when it sent a proof)")
        )
    lifetime = doc.get("expires_in")
    issued = time.time()
    expires = issued + float(lifetime) if isinstance(lifetime, int | float) and lifetime > 0 else None
    refresh = doc.get("refresh_token")
    scope = doc.get("scope")
    return Tokens(
        access,
        refresh if isinstance(refresh, str) and refresh else None,
        expires,
        tuple(scope.split()) if isinstance(scope, str) else None,
        DPOP_SCHEME if kind.lower() == "dpop" else "Bearer",
        issued,
    )


async def _send(client: httpx2.AsyncClient, method: str, url: str, **kwargs: object) -> httpx2.Response:
    try:
        response = await client.request(method, url, **kwargs)  # type: ignore[arg-type]
    except httpx2.HTTPError as exc:
        raise OAuthProblem(f"{method} {shown_url(url)} failed ({type(exc).__name__})") from None
    except AddressRefused as exc:
        raise AddressRefused(f"LevelCode refused {method} {shown_url(url)}: {exc}") from None
    if len(response.content) > MAX_DOCUMENT_BYTES:
        raise OAuthProblem(f"{method} {shown_url(url)} answered more than {MAX_DOCUMENT_BYTES} bytes")
    return response


def _json_object(response: httpx2.Response, url: str) -> Mapping[str, object]:
    try:
        doc = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        doc = None
    if not isinstance(doc, dict):
        raise OAuthProblem(f"{shown_url(url)} did not answer with a JSON object")
    return doc


def _refusal(what: str, status: int, doc: Mapping[str, object]) -> str:
    error, description = doc.get("error"), doc.get("error_description")
    said = f": {str(error)[:80]}" if error else ""
    said += f" ({str(description)[:200]})" if description else ""
    return f"{what} refused (HTTP {status}){said}"


def _first(value: object) -> str | None:
    return value[0] if isinstance(value, list) and value and isinstance(value[0], str) else None
