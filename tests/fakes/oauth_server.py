"""A real OAuth 2.1 authorization server on 127.0.0.1 for the sign-in tests, strict where real
ones are strict: PKCE S256 required and checked, redirect URIs matched exactly against the
registration, the RFC 8707 resource required and bound to the code and the tokens, codes single
use, refresh tokens rotated (an old one refused), RFC 9207 `iss` in every redirect, an RFC 7662
introspection endpoint the protected MCP server asks, RFC 7009 revocation, and DPoP-bound tokens
(token_type DPoP) for a token request that carries a proof (which it does not check). It approves
every sign-in at once (the user said yes), unless told to refuse.

Threaded (http.server), so both an in-process test and a LevelCode subprocess can reach it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit


@dataclass
class Grant:
    client_id: str
    resource: str
    scope: str
    redirect_uri: str = ""
    challenge: str = ""
    expires_at: float = 0.0


@dataclass
class AuthState:
    issuer: str = ""
    resource: str = ""  # the one MCP server this server issues tokens for
    scopes: tuple[str, ...] = ("mcp",)
    token_seconds: float = 3600.0
    clients: dict[str, dict[str, object]] = field(default_factory=dict)
    codes: dict[str, Grant] = field(default_factory=dict)
    access: dict[str, Grant] = field(default_factory=dict)
    refresh: dict[str, Grant] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)  # "GET /authorize", "POST /token refresh_token", …
    refresh_latency: float = 0.0  # seconds a refresh takes to answer (widens a race between clients)
    token_latency: float = 0.0  # seconds every token request takes (a sign-in's code exchange too)
    refresh_arrived: threading.Event = field(default_factory=threading.Event)  # a refresh came in
    refresh_gate: threading.Event | None = None  # when set up, a refresh is answered once it is set
    revoked: list[str] = field(default_factory=list)  # "refresh_token rt-…", "access_token at-…"
    revocation_down: bool = False  # the revocation endpoint answers 503
    machine_clients: dict[str, str] = field(default_factory=dict)  # client_credentials: id → secret
    refusals: list[str] = field(default_factory=list)  # why a request was refused
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    @property
    def state(self) -> AuthState:
        return self.server.state

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        with self.state.lock:
            self.state.seen.append(f"GET {url.path}")
            if url.path == "/.well-known/oauth-authorization-server":
                self._json(200, self._metadata())
            elif url.path == "/authorize":
                self._authorize(dict(parse_qsl(url.query)))
            else:
                self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode()
        path = urlsplit(self.path).path
        self._hold(path, body)
        with self.state.lock:
            if path == "/register":
                self.state.seen.append("POST /register")
                self._register(json.loads(body or "{}"))
                return
            form = dict(parse_qsl(body))
            self.state.seen.append(f"POST {path} {form.get('grant_type', '')}".strip())
            if path == "/token":
                self._token(form)
            elif path == "/introspect":
                self._introspect(form)
            elif path == "/revoke":
                self._revoke(form)
            else:
                self._json(404, {"error": "not_found"})

    def _hold(self, path: str, body: str) -> None:
        """An authorization server under load, outside the lock: a second client can arrive meanwhile."""
        if path != "/token":
            return
        if "grant_type=refresh_token" in body:
            self.state.refresh_arrived.set()
            if self.state.refresh_gate is not None:
                self.state.refresh_gate.wait(30)
            threading.Event().wait(self.state.refresh_latency or self.state.token_latency)
        elif self.state.token_latency:
            threading.Event().wait(self.state.token_latency)

    # --- endpoints ---------------------------------------------------------------------------------

    def _metadata(self) -> dict[str, object]:
        issuer = self.state.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "introspection_endpoint": f"{issuer}/introspect",
            "revocation_endpoint": f"{issuer}/revoke",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "authorization_response_iss_parameter_supported": True,
            "scopes_supported": [*self.state.scopes, "offline_access"],
        }

    def _register(self, doc: dict[str, object]) -> None:
        uris = doc.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(_loopback_or_https(str(u)) for u in uris):
            self._refuse(400, "invalid_redirect_uri", "redirect URIs must be loopback http or https")
            return
        client_id = "client-" + secrets.token_hex(6)
        self.state.clients[client_id] = {"redirect_uris": [str(u) for u in uris]}
        self._json(201, {"client_id": client_id, "redirect_uris": uris, "token_endpoint_auth_method": "none"})

    def _authorize(self, query: dict[str, str]) -> None:
        client = self.state.clients.get(query.get("client_id", ""))
        redirect = query.get("redirect_uri", "")
        if client is None or redirect not in client["redirect_uris"]:  # type: ignore[operator]
            self._refuse(400, "invalid_request", "unknown client or unregistered redirect_uri")  # no redirect
            return
        problem = self._authorize_problem(query)
        if problem is not None:
            self._redirect(redirect, {"error": "invalid_request", "error_description": problem}, query)
            return
        code = secrets.token_urlsafe(16)
        self.state.codes[code] = Grant(
            query["client_id"], query["resource"], query.get("scope", ""), redirect, query["code_challenge"]
        )
        self._redirect(redirect, {"code": code}, query)

    def _authorize_problem(self, query: dict[str, str]) -> str | None:
        if query.get("response_type") != "code":
            return "response_type must be code"
        if not query.get("code_challenge") or query.get("code_challenge_method") != "S256":
            return "PKCE with S256 is required"
        if query.get("resource") != self.state.resource:
            return f"unknown resource {query.get('resource')!r}"
        return None

    def _token(self, form: dict[str, str]) -> None:
        kind = form.get("grant_type")
        grant = self._redeem_code(form) if kind == "authorization_code" else None
        if kind == "refresh_token":
            grant = self._redeem_refresh(form)
        elif kind == "client_credentials":
            grant = self._client_credentials(form)
        elif kind != "authorization_code":
            self._refuse(400, "unsupported_grant_type", str(kind))
            return
        if grant is None:
            return  # refused already
        self._issue(grant, refresh=kind != "client_credentials")

    def _client_credentials(self, form: dict[str, str]) -> Grant | None:
        """client_secret_basic only, as a strict server may insist; no refresh token is issued."""
        scheme, _, encoded = self.headers.get("Authorization", "").partition(" ")
        pair = base64.b64decode(encoded).decode() if scheme == "Basic" else ":"
        client_id, _, secret = (unquote(part) for part in pair.partition(":"))
        if not client_id or self.state.machine_clients.get(client_id) != secret:
            self._refuse(401, "invalid_client", "unknown client or wrong secret")
            return None
        if form.get("resource") != self.state.resource:
            self._refuse(400, "invalid_target", f"unknown resource {form.get('resource')!r}")
            return None
        return Grant(client_id, self.state.resource, form.get("scope", ""))

    def _redeem_code(self, form: dict[str, str]) -> Grant | None:
        grant = self.state.codes.pop(form.get("code", ""), None)  # single use
        if grant is None:
            self._refuse(400, "invalid_grant", "unknown or used code")
            return None
        checks = {
            "client_id": form.get("client_id") == grant.client_id,
            "redirect_uri": form.get("redirect_uri") == grant.redirect_uri,
            "resource": form.get("resource") == grant.resource,
            "code_verifier": _s256(form.get("code_verifier", "")) == grant.challenge,
        }
        wrong = [name for name, ok in checks.items() if not ok]
        if wrong:
            self._refuse(400, "invalid_grant", f"{', '.join(wrong)} does not match the authorization")
            return None
        return grant

    def _redeem_refresh(self, form: dict[str, str]) -> Grant | None:
        grant = self.state.refresh.pop(form.get("refresh_token", ""), None)  # rotated: one use
        if grant is None or form.get("client_id") != grant.client_id:
            self._refuse(400, "invalid_grant", "unknown, used or foreign refresh token")
            return None
        if form.get("resource", grant.resource) != grant.resource:
            self._refuse(400, "invalid_target", "resource differs from the original grant")
            return None
        return grant

    def _issue(self, grant: Grant, *, refresh: bool = True) -> None:
        access = "at-" + secrets.token_urlsafe(16)
        lifetime = self.state.token_seconds
        self.state.access[access] = Grant(
            grant.client_id, grant.resource, grant.scope, expires_at=time.time() + lifetime
        )
        body: dict[str, object] = {
            "access_token": access,
            "token_type": "DPoP" if self.headers.get("DPoP") else "Bearer",  # bound when a proof came
            "expires_in": int(lifetime),
        }
        if refresh:
            body["refresh_token"] = "rt-" + secrets.token_urlsafe(16)
            self.state.refresh[str(body["refresh_token"])] = Grant(
                grant.client_id, grant.resource, grant.scope
            )
        self._json(200, {**body, "scope": grant.scope} if grant.scope else body)

    def _revoke(self, form: dict[str, str]) -> None:
        """RFC 7009: the token is gone whatever its type; an unknown one is answered 200 as well."""
        token = form.get("token", "")
        if self.state.revocation_down:
            self._refuse(503, "temporarily_unavailable", "revocation is down")
            return
        if self.state.refresh.pop(token, None) is not None:
            self.state.revoked.append(f"refresh_token {token}")
        if self.state.access.pop(token, None) is not None:
            self.state.revoked.append(f"access_token {token}")
        self._json(200, {})

    def _introspect(self, form: dict[str, str]) -> None:
        grant = self.state.access.get(form.get("token", ""))
        if grant is None or grant.expires_at < time.time():
            self._json(200, {"active": False})
            return
        self._json(
            200,
            {
                "active": True,
                "client_id": grant.client_id,
                "scope": grant.scope,
                "aud": grant.resource,
                "exp": int(grant.expires_at),
                "iss": self.state.issuer,
            },
        )

    # --- plumbing ----------------------------------------------------------------------------------

    def _redirect(self, target: str, params: dict[str, str], query: dict[str, str]) -> None:
        params = {**params, "iss": self.state.issuer}
        if "state" in query:
            params["state"] = query["state"]
        self.send_response(302)
        self.send_header("Location", f"{target}?{urlencode(params)}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _refuse(self, status: int, error: str, why: str) -> None:
        self.state.refusals.append(f"{error}: {why}")
        self._json(status, {"error": error, "error_description": why})

    def _json(self, status: int, doc: dict[str, object]) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a resource server introspects every request, many at once
    state: AuthState


class AuthorizationServer:
    def __init__(self, *, resource: str = "", scopes: tuple[str, ...] = ("mcp",)) -> None:
        self._http = _Server(("127.0.0.1", 0), _Handler)
        self._http.state = AuthState(resource=resource, scopes=scopes)
        self.state.issuer = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def state(self) -> AuthState:
        return self._http.state

    @property
    def issuer(self) -> str:
        return self.state.issuer

    def expire_access_tokens(self) -> None:
        """Every access token lapses now (refresh tokens stay good), as time passing would do."""
        with self.state.lock:
            for grant in self.state.access.values():
                grant.expires_at = 0.0

    def start(self) -> AuthorizationServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


@contextmanager
def authorization_server(
    resource: str = "", scopes: tuple[str, ...] = ("mcp",)
) -> Iterator[AuthorizationServer]:
    server = AuthorizationServer(resource=resource, scopes=scopes).start()
    try:
        yield server
    finally:
        server.stop()


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _loopback_or_https(uri: str) -> bool:
    parts = urlsplit(uri)
    return parts.scheme == "https" or (
        parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
    )
