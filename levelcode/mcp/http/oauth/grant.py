"""The authorization-code grant with PKCE, as data: the URL the browser opens, the checks on what
comes back to the callback (state, RFC 9207 `iss`), and the token requests' forms and client
authentication.

Pure apart from the randomness of `new_attempt`. The verifier, the code and the client secret are
secrets: they go into request bodies only, never into a message.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from levelcode.mcp.http.oauth.jwt_signing import SigningKey, sign_jwt
from levelcode.mcp.http.oauth.metadata import AuthServer, OAuthProblem

OFFLINE_ACCESS = "offline_access"
JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_SECONDS = 60  # a client assertion is good for one request: short-lived (RFC 7523 §3)


@dataclass(frozen=True)
class Client:
    """The OAuth client LevelCode is at one authorization server."""

    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    auth_method: str | None = None  # token_endpoint_auth_method; None: chosen from the metadata
    redirect_uri: str | None = None  # the one it was registered with, if registration fixed one
    assertion_key: SigningKey | None = field(default=None, repr=False)  # private_key_jwt


@dataclass(frozen=True)
class Attempt:
    """One authorization request: what the callback must match and the token request must carry."""

    state: str = field(repr=False)
    verifier: str = field(repr=False)
    redirect_uri: str
    issuer: str
    scope: tuple[str, ...] | None

    @property
    def challenge(self) -> str:
        digest = hashlib.sha256(self.verifier.encode("ascii")).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def new_attempt(redirect_uri: str, issuer: str, scope: tuple[str, ...] | None) -> Attempt:
    # 32 random bytes → a 43-character verifier (RFC 7636 §4.1) and an unguessable state.
    return Attempt(secrets.token_urlsafe(24), secrets.token_urlsafe(32), redirect_uri, issuer, scope)


def authorization_url(server: AuthServer, client: Client, attempt: Attempt, resource: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": attempt.redirect_uri,
        "state": attempt.state,
        "code_challenge": attempt.challenge,
        "code_challenge_method": "S256",
        "resource": resource,
    }
    if attempt.scope:
        params["scope"] = " ".join(attempt.scope)
    parts = urlsplit(server.authorization_endpoint)
    query = "&".join(q for q in (parts.query, urlencode(params, quote_via=quote)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def select_scope(
    challenged: tuple[str, ...] | None,
    resource_scopes: tuple[str, ...] | None,
    server: AuthServer,
    configured: tuple[str, ...] | None = None,
) -> tuple[str, ...] | None:
    """The spec's order: the challenge's scope, else all of `scopes_supported`, else none at all;
    `offline_access` added when the authorization server lists it (for a refresh token)."""
    chosen = configured or challenged or resource_scopes
    if not chosen:
        return None
    if server.scopes_supported and OFFLINE_ACCESS in server.scopes_supported and OFFLINE_ACCESS not in chosen:
        chosen = (*chosen, OFFLINE_ACCESS)
    return tuple(dict.fromkeys(chosen))


def step_up_scope(previous: tuple[str, ...] | None, challenged: tuple[str, ...]) -> tuple[str, ...]:
    """Re-authorization asks for what was asked before and what the challenge adds (the union)."""
    return tuple(dict.fromkeys((*(previous or ()), *challenged)))


def check_callback(params: Mapping[str, str], attempt: Attempt, server: AuthServer) -> str:
    """The code, once the response is known to answer this attempt and come from this issuer.
    RFC 9207 §2.4: a present `iss` must equal the recorded issuer exactly (no normalization); an
    absent one is refused when the server said it sends it. An error is shown only after that."""
    if params.get("state") != attempt.state:
        raise OAuthProblem("the sign-in answer does not belong to this sign-in (state mismatch): ignored")
    iss = params.get("iss")
    if iss is not None and iss != attempt.issuer:
        raise OAuthProblem(
            f"the sign-in answer names issuer {iss[:200]!r}, not {attempt.issuer!r} (a mix-up?): refused"
        )
    if iss is None and server.iss_parameter_supported:
        raise OAuthProblem(
            f"the sign-in answer lacks the issuer that {attempt.issuer} said it always sends: refused"
        )
    if "error" in params:
        description = params.get("error_description", "")[:300]
        raise OAuthProblem(f"the authorization server refused: {params['error'][:80]} {description}".strip())
    code = params.get("code")
    if not code:
        raise OAuthProblem("the sign-in answer carries no authorization code")
    return code


def code_form(code: str, attempt: Attempt, resource: str) -> dict[str, str]:
    return {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": attempt.redirect_uri,
        "code_verifier": attempt.verifier,
        "resource": resource,
    }


def refresh_form(refresh_token: str, resource: str, scope: tuple[str, ...] | None) -> dict[str, str]:
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "resource": resource}
    if scope:
        form["scope"] = " ".join(scope)
    return form


def client_authentication(
    client: Client, server: AuthServer, form: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """(form, headers) with the client authenticated the way it registered, or as the server allows:
    client_secret_basic (RFC 6749 §2.3.1, the default), client_secret_post, private_key_jwt (a
    signed assertion, RFC 7523 §2.2), or none (public)."""
    method = client.auth_method or _auth_method(client, server)
    form = {**form}
    headers: dict[str, str] = {}
    if method == "private_key_jwt" and client.assertion_key is not None:
        form.update(
            client_id=client.client_id,
            client_assertion_type=JWT_BEARER_ASSERTION,
            client_assertion=client_assertion(client.client_id, client.assertion_key, server.issuer),
        )
    elif method == "client_secret_basic" and client.client_secret is not None:
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    elif method == "client_secret_post" and client.client_secret is not None:
        form.update(client_id=client.client_id, client_secret=client.client_secret)
    elif client.client_id:  # public (a workload's jwt-bearer grant may carry no client at all)
        form["client_id"] = client.client_id
    return form, headers


def client_assertion(client_id: str, key: SigningKey, issuer: str) -> str:
    """RFC 7523 §3: iss and sub the client, aud the authorization server's issuer identifier."""
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": issuer,
        "jti": secrets.token_urlsafe(16),
        "iat": now,
        "exp": now + ASSERTION_SECONDS,
    }
    return sign_jwt(key, claims, {"typ": "JWT"})


def _auth_method(client: Client, server: AuthServer) -> str:
    if client.assertion_key is not None:
        return "private_key_jwt"
    if client.client_secret is None:
        return "none"
    offered = server.token_auth_methods or ("client_secret_basic",)
    if "client_secret_basic" in offered:
        return "client_secret_basic"
    return "client_secret_post" if "client_secret_post" in offered else "none"
