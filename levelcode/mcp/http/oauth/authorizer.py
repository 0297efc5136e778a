"""One remote server's sign-in, as its transport asks for it: a stored token for the first request,
and on a refusal — a refresh, or (with a user to ask) the browser hand-off, or (headless) the
exact `levelcode mcp login NAME` to run.

A 401 re-reads the server's metadata every time, so a server that moved to another authorization
server is followed there and nothing of the old one is presented to the new one. A 403 with
`insufficient_scope` asks for the union of what was asked before and what the challenge adds;
once signed in for a scope set the server still refuses, it is not asked again (no loop), and
no connection signs in more than MAX_SIGN_INS times. Errors name servers and scopes, never tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

import httpx2

from levelcode.core.errors import AuthorizationRequired, SignInRequired
from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.http.oauth.address_guard import Resolve
from levelcode.mcp.http.oauth.callback import CallbackListener
from levelcode.mcp.http.oauth.challenge import BearerChallenge, parse_challenge
from levelcode.mcp.http.oauth.discovery import Discovered, NoSignInOffered, discover
from levelcode.mcp.http.oauth.grant import (
    Client,
    authorization_url,
    check_callback,
    client_authentication,
    code_form,
    new_attempt,
    refresh_form,
    select_scope,
    step_up_scope,
)
from levelcode.mcp.http.oauth.metadata import AuthServer, OAuthProblem, canonical_resource
from levelcode.mcp.http.oauth.registration import (
    client_from_record,
    client_record,
    configured_client,
    registered_client,
)
from levelcode.mcp.http.oauth.requests import Tokens, oauth_client, token_request
from levelcode.mcp.http.oauth.store import CredentialStore, Record, store_key
from levelcode.mcp.protocol.sign_in import SignIn, SignInPrompt, UserAgent
from levelcode.mcp.protocol.transport import AuthChallenge

MAX_SIGN_INS = 3


def bearer(tokens: Tokens) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens.access_token}"}


def login_command(server: str) -> str:
    return f"levelcode mcp login {server}"


class OAuthAuthorizer:
    def __init__(
        self,
        server: str,
        url: str,
        entry: OAuthEntry | None,
        secret: str | None,
        sign_in: SignIn,
        *,
        resolve: Resolve | None = None,  # how names are resolved (the system's; tests map their own)
    ) -> None:
        self.server, self.url, self.entry, self.sign_in = server, url, entry, sign_in
        self._resolve = resolve
        self._secret = secret
        self.key = store_key(server, canonical_resource(url))
        self.store = CredentialStore(sign_in.store_dir)
        self._lock = asyncio.Lock()
        self._forced = sign_in.force
        self._sign_ins = 0
        self._signed_in_for: list[frozenset[str]] = []  # scope sets signed in for in this process
        self._refreshed: str | None = None  # the last access token a refresh produced

    # --- what the transport calls ------------------------------------------------------------------

    async def initial(self) -> Mapping[str, str]:
        async with self._lock:
            record = None if self._forced else self.store.load(self.key)
            tokens = _tokens(record)
            if record is None or tokens is None:
                return {}
            if tokens.expired() and tokens.refresh_token:
                with contextlib.suppress(OAuthProblem):
                    async with oauth_client(self.url, self._resolve) as http:
                        tokens = await self._refresh(http, record, tokens)
            return bearer(tokens)

    async def challenged(self, challenge: AuthChallenge) -> Mapping[str, str] | None:
        parsed = parse_challenge(challenge.www_authenticate)
        if challenge.status == 403 and not parsed.insufficient_scope:
            return None  # forbidden for another reason: signing in again would not change it
        async with self._lock:
            current = _tokens(self.store.load(self.key))
            if (
                current is not None
                and not self._forced
                and challenge.sent != bearer(current)["Authorization"]
            ):
                return bearer(current)  # another request renewed the sign-in meanwhile
            try:
                return await self._renew(challenge, parsed)
            except NoSignInOffered:
                return None  # the refusal stands, with its advice about a token in the headers
            except OAuthProblem as exc:
                raise AuthorizationRequired(
                    f"signing in failed: {exc}", server=self.server, status=challenge.status
                ) from None

    # --- renewal -------------------------------------------------------------------------------------

    async def _renew(self, challenge: AuthChallenge, parsed: BearerChallenge) -> dict[str, str]:
        async with oauth_client(self.url, self._resolve) as http:
            found = await discover(http, self.url, parsed.resource_metadata)
            record = self.store.load(self.key) or {}
            if record.get("issuer") != found.server.issuer:
                record = {}  # bound to its issuer: nothing of another authorization server is reused
            tokens = _tokens(record)
            if self._may_refresh(challenge, tokens):
                assert tokens is not None
                with contextlib.suppress(OAuthProblem):
                    return bearer(await self._refresh(http, record, tokens))
            scope = self._scope(parsed, found, record)
            user_agent = self._user_agent(found, scope, parsed, record)
            tokens, client = await self._authorize(
                http, user_agent=user_agent, found=found, record=record, scope=scope, parsed=parsed
            )
        self._save(found, client, tokens, scope)
        return bearer(tokens)

    def _may_refresh(self, challenge: AuthChallenge, tokens: Tokens | None) -> bool:
        """A 401 on a token that has a refresh token, unless that token came from a refresh."""
        if challenge.status != 401 or self._forced or tokens is None or not tokens.refresh_token:
            return False
        return challenge.sent != f"Bearer {self._refreshed}"

    def _scope(self, parsed: BearerChallenge, found: Discovered, record: Record) -> tuple[str, ...] | None:
        previous = _scope_list(record.get("requested_scope"))
        wanted = _scope_list(record.get("wanted_scope"))
        configured = self.entry.scopes if self.entry is not None else None
        if parsed.insufficient_scope:
            return step_up_scope(previous or configured, parsed.scope or ())
        chosen = select_scope(parsed.scope, found.resource_scopes, found.server, configured)
        if previous or wanted:  # signing in again keeps what was granted (and what a step-up wanted)
            chosen = step_up_scope((*(previous or ()), *(wanted or ())), chosen or ())
        return chosen

    def _user_agent(
        self, found: Discovered, scope: tuple[str, ...] | None, parsed: BearerChallenge, record: Record
    ) -> UserAgent:
        wanted = frozenset(scope or ())
        if parsed.insufficient_scope and any(wanted <= done for done in self._signed_in_for):
            raise AuthorizationRequired(
                f"the server still refuses (insufficient_scope: {' '.join(parsed.scope or ()) or '?'}) "
                "right after signing in for those scopes; LevelCode does not ask again",
                server=self.server,
                status=403,
            )
        if self._sign_ins >= MAX_SIGN_INS:
            raise AuthorizationRequired(
                f"still refused after {MAX_SIGN_INS} sign-ins in this session", server=self.server, status=401
            )
        if self.sign_in.user_agent is None:
            raise SignInRequired(
                self._headless_words(found, scope, parsed, record), server=self.server, status=401
            )
        return self.sign_in.user_agent

    def _headless_words(
        self, found: Discovered, scope: tuple[str, ...] | None, parsed: BearerChallenge, record: Record
    ) -> str:
        if parsed.insufficient_scope:
            self._remember_wanted(found, record, scope)
            what = f"more permissions ({' '.join(parsed.scope or ())})"
        else:
            what = "you to sign in" if not record else "you to sign in again (the stored sign-in lapsed)"
        return (
            f"needs {what} at {found.server.issuer}; nobody can be asked here. "
            f"Run `{login_command(self.server)}` in a terminal, then try again"
        )

    async def _authorize(
        self,
        http: httpx2.AsyncClient,
        *,
        user_agent: UserAgent,
        found: Discovered,
        record: Record,
        scope: tuple[str, ...] | None,
        parsed: BearerChallenge,
    ) -> tuple[Tokens, Client]:
        server = found.server
        client = configured_client(self.entry, self._secret, server) or client_from_record(
            record.get("client")
        )
        listener = await self._listen(client)
        try:
            if client is None or (client.redirect_uri and client.redirect_uri != listener.redirect_uri):
                if self.entry is not None and self.entry.client_id:
                    client = configured_client(self.entry, self._secret, server)
                else:
                    client = await registered_client(http, server, listener.redirect_uri, scope)
            assert client is not None
            attempt = new_attempt(listener.redirect_uri, server.issuer, scope)
            url = authorization_url(server, client, attempt, found.resource)
            prompt = SignInPrompt(
                self.server,
                found.resource,
                server.issuer,
                scope,
                url,
                listener.redirect_uri,
                step_up=parsed.insufficient_scope,
            )
            self._sign_ins += 1
            answer = await self._wait_for_answer(user_agent, prompt, listener)
            code = check_callback(answer, attempt, server)
            form, headers = client_authentication(client, server, code_form(code, attempt, found.resource))
            tokens = await token_request(http, server.token_endpoint, form, headers)
        finally:
            await listener.close()
        self._signed_in_for.append(frozenset(scope or ()))
        self._forced = False
        return tokens, client

    async def _listen(self, client: Client | None) -> CallbackListener:
        """The callback on the port the client was registered with, if it was; else any free one."""
        port = self.entry.callback_port if self.entry is not None and self.entry.callback_port else None
        if port is None and client is not None and client.redirect_uri:
            port = _loopback_port(client.redirect_uri)
        try:
            return await CallbackListener(port or 0).start()
        except OSError:
            if self.entry is not None and self.entry.callback_port:
                raise OAuthProblem(f"the callback port {port} (oauth.callbackPort) is in use") from None
            return await CallbackListener(0).start()

    async def _wait_for_answer(
        self, user_agent: UserAgent, prompt: SignInPrompt, listener: CallbackListener
    ) -> dict[str, str]:
        opened = asyncio.ensure_future(user_agent.open(prompt, listener.take))
        answered = asyncio.ensure_future(listener.answer())
        try:
            async with asyncio.timeout(self.sign_in.wait_seconds):
                done, _ = await asyncio.wait({opened, answered}, return_when=asyncio.FIRST_COMPLETED)
                if answered not in done:
                    if opened.exception() is not None:
                        raise OAuthProblem(f"the sign-in was not completed ({opened.exception()})")
                    return await answered
                return answered.result()
        except TimeoutError:
            raise OAuthProblem(
                f"no sign-in arrived within {self.sign_in.wait_seconds:g} s at {listener.redirect_uri}"
            ) from None
        finally:
            for task in (opened, answered):
                task.cancel()

    async def _refresh(self, http: httpx2.AsyncClient, record: Record, tokens: Tokens) -> Tokens:
        assert tokens.refresh_token is not None
        server = _server_of(record)
        client = configured_client(self.entry, self._secret, server) or client_from_record(
            record.get("client")
        )
        if client is None:
            raise OAuthProblem("no client to refresh with")
        form, headers = client_authentication(
            client, server, refresh_form(tokens.refresh_token, str(record.get("resource")), None)
        )
        fresh = await token_request(http, server.token_endpoint, form, headers)
        if fresh.refresh_token is None:  # not rotated: the old one stays valid
            fresh = Tokens(fresh.access_token, tokens.refresh_token, fresh.expires_at, fresh.scope)
        self._refreshed = fresh.access_token
        self.store.save(self.key, {**record, "tokens": _tokens_record(fresh)})
        return fresh

    # --- keeping it --------------------------------------------------------------------------------

    def _save(self, found: Discovered, client: Client, tokens: Tokens, scope: tuple[str, ...] | None) -> None:
        registered = self.entry is None or not self.entry.client_id
        self.store.save(
            self.key,
            {
                "server": self.server,
                "resource": found.resource,
                "issuer": found.server.issuer,
                "token_endpoint": found.server.token_endpoint,
                "token_auth_methods": list(found.server.token_auth_methods or ()) or None,
                "client": client_record(client) if registered else None,
                "tokens": _tokens_record(tokens),
                "requested_scope": list(scope) if scope else None,
            },
        )

    def _remember_wanted(self, found: Discovered, record: Record, scope: tuple[str, ...] | None) -> None:
        """A headless step-up that could not happen: `mcp login` then asks for these scopes too."""
        if record and scope:
            self.store.save(self.key, {**record, "wanted_scope": list(scope)})


def _server_of(record: Mapping[str, object]) -> AuthServer:
    methods = record.get("token_auth_methods")
    return AuthServer(
        issuer=str(record.get("issuer")),
        authorization_endpoint="",
        token_endpoint=str(record.get("token_endpoint")),
        token_auth_methods=tuple(methods) if isinstance(methods, list) else None,
    )


def _tokens(record: Mapping[str, object] | None) -> Tokens | None:
    doc = record.get("tokens") if record else None
    if not isinstance(doc, Mapping) or not isinstance(doc.get("access_token"), str):
        return None
    expires = doc.get("expires_at")
    refresh = doc.get("refresh_token")
    return Tokens(
        str(doc["access_token"]),
        refresh if isinstance(refresh, str) else None,
        float(expires) if isinstance(expires, int | float) else None,
        _scope_list(doc.get("scope")),
    )


def _tokens_record(tokens: Tokens) -> dict[str, Any]:
    return {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "expires_at": tokens.expires_at,
        "scope": list(tokens.scope) if tokens.scope is not None else None,
    }


def _scope_list(value: object) -> tuple[str, ...] | None:
    return tuple(str(v) for v in value) if isinstance(value, list) and value else None


def _loopback_port(uri: str) -> int | None:
    from urllib.parse import urlsplit

    parts = urlsplit(uri)
    return parts.port if parts.hostname in ("127.0.0.1", "localhost") else None
