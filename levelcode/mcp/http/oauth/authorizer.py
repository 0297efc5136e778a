"""One remote server's sign-in, as its transport asks for it: the headers for each request (a stored
token, renewed ahead of its expiry, with a DPoP proof when the token is bound to a key), and on a
refusal — a refresh, a grant without a user (client credentials, workload identity, enterprise-
managed), or (with a user to ask) the browser hand-off, or (headless) the exact
`levelcode mcp login NAME` to run.

A 401 re-reads the server's metadata every time, so a server that moved to another authorization
server is followed there and nothing of the old one is presented to the new one: sign-ins are kept
per issuer. A 403 with `insufficient_scope` asks for the union of what was asked before and what
the challenge adds; once signed in for a scope set the server still refuses, it is not asked again
(no loop), and no connection signs in more than MAX_SIGN_INS times. A refresh happens once across
all LevelCode processes (refresh_lock.py). Errors name servers and scopes, never tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping

import httpx2

from levelcode.core.errors import AuthorizationRequired, SignInRequired
from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.config.oauth_grants import GrantSettings
from levelcode.mcp.http.oauth.address_guard import Resolve
from levelcode.mcp.http.oauth.browser_sign_in import BrowserSignIn
from levelcode.mcp.http.oauth.challenge import BearerChallenge, parse_challenge
from levelcode.mcp.http.oauth.discovery import Discovered, NoSignInOffered, discover
from levelcode.mcp.http.oauth.dpop import USE_DPOP_NONCE, DpopProver
from levelcode.mcp.http.oauth.entry_secrets import OAuthSecrets, read_secret_file
from levelcode.mcp.http.oauth.grant import (
    Client,
    client_authentication,
    refresh_form,
)
from levelcode.mcp.http.oauth.jwt_signing import SigningKey, load_signing_key
from levelcode.mcp.http.oauth.kept_sign_ins import KeptSignIns
from levelcode.mcp.http.oauth.machine_grants import GrantTarget, tokens_without_user
from levelcode.mcp.http.oauth.metadata import OAuthProblem, canonical_resource
from levelcode.mcp.http.oauth.refresh_lock import refresh_lock, seen_through
from levelcode.mcp.http.oauth.registration import client_from_record, client_record, configured_client
from levelcode.mcp.http.oauth.requests import REQUEST_SECONDS, Tokens, oauth_client, token_request
from levelcode.mcp.http.oauth.store import CredentialStore, store_key
from levelcode.mcp.http.oauth.token_records import (
    Record,
    new_record,
    scope_list,
    server_of,
    sign_in_scope,
    tokens_of,
    tokens_record,
    with_tokens,
)
from levelcode.mcp.protocol.sign_in import SignIn, UserAgent
from levelcode.mcp.protocol.transport import AuthChallenge

MAX_SIGN_INS = 3
REFRESH_AHEAD_SECONDS = 60.0  # a token this close to its expiry is renewed before it is sent
GRANT_RETRY_SECONDS = 60.0  # a refused grant without a user is not tried again sooner


def login_command(server: str) -> str:
    return f"levelcode mcp login {server}"


def authorization(tokens: Tokens) -> dict[str, str]:
    return {"Authorization": f"{tokens.token_type} {tokens.access_token}"}


class OAuthAuthorizer:
    def __init__(
        self,
        server: str,
        url: str,
        entry: OAuthEntry | None,
        secrets: OAuthSecrets,
        sign_in: SignIn,
        *,
        resolve: Resolve | None = None,  # how names are resolved (the system's; tests map their own)
    ) -> None:
        self.server, self.url, self.entry, self.sign_in = server, url, entry, sign_in
        self.settings = entry.grants if entry is not None else GrantSettings()
        self._resolve = resolve
        self._secrets = secrets
        self.store = CredentialStore(sign_in.store_dir)
        self.kept = KeptSignIns(self.store, store_key(server, canonical_resource(url)))
        self._lock = asyncio.Lock()
        self._forced = sign_in.force
        self._sign_ins = 0
        self._signed_in_for: list[frozenset[str]] = []  # scope sets signed in for in this process
        self._refreshed: str | None = None  # the last access token a refresh produced
        self._record: Record | None = None  # the sign-in in use
        self._dpop: DpopProver | None = None  # the key the tokens in use are bound to
        self._dpop_pem: str | None = None  # that key as kept, to notice another one
        self._server_wants_dpop = False  # a challenge used the DPoP scheme
        self._grant_failure: tuple[str, float] | None = None  # why a grant without a user failed, when
        self._key: SigningKey | None = None
        self._looked = False  # the store was read once: what it holds is in _record (or nothing)
        self._quiet_failure: str | None = None  # the access token whose early renewal failed
        self._reached_at: str | None = None  # the address the server's last refusal came from

    # --- what the transport calls ------------------------------------------------------------------

    async def current(self) -> Mapping[str, str]:
        """The headers for the next request: the kept token, renewed when it is about to lapse."""
        async with self._lock:
            if not self._looked and not self._forced:
                self._looked = True
                self._use(self.kept.current())
            record = None if self._forced else self._record
            tokens = tokens_of(record)
            if record is None or tokens is None:
                return {}
            if tokens.lapsing(REFRESH_AHEAD_SECONDS) and self._quiet_failure != tokens.access_token:
                try:
                    record = await self._renew_quietly(record, tokens)
                except OAuthProblem:
                    self._quiet_failure = tokens.access_token  # once per token: the 401 path does the rest
            self._use(record)
            renewed = tokens_of(record)
            return authorization(renewed) if renewed is not None else {}

    def proof(self, method: str, url: str, sent: str | None) -> Mapping[str, str]:
        """A fresh DPoP proof for a request that carries the DPoP-bound token in use."""
        tokens = tokens_of(self._record)
        if self._dpop is None or tokens is None or sent != authorization(tokens)["Authorization"]:
            return {}
        if tokens.token_type != "DPoP":
            return {}
        return {"DPoP": self._dpop.proof(method, url, tokens.access_token)}

    async def challenged(self, challenge: AuthChallenge) -> Mapping[str, str] | None:
        parsed = parse_challenge(challenge.www_authenticate)
        self._reached_at = challenge.peer or self._reached_at
        if challenge.status == 403 and not parsed.insufficient_scope:
            return None  # forbidden for another reason: signing in again would not change it
        async with self._lock:
            if parsed.error == USE_DPOP_NONCE:
                return self._with_nonce(challenge)
            current = tokens_of(self.kept.current())
            if (
                current is not None
                and not self._forced
                and challenge.sent != authorization(current)["Authorization"]
            ):
                self._use(self.kept.current())
                return authorization(current)  # another request (or process) renewed the sign-in
            try:
                return await self._renew(challenge, parsed)
            except NoSignInOffered:
                return None  # the refusal stands, with its advice about a token in the headers
            except OAuthProblem as exc:
                raise AuthorizationRequired(
                    f"signing in failed: {exc}", server=self.server, status=challenge.status
                ) from None

    def _with_nonce(self, challenge: AuthChallenge) -> Mapping[str, str] | None:
        """RFC 9449 §9: the server wants its nonce in the proof; a new one is worth one retry."""
        tokens = tokens_of(self._record)
        if (
            self._dpop is None
            or tokens is None
            or not self._dpop.remember_nonce(challenge.url, challenge.dpop_nonce)
        ):
            return None
        return authorization(tokens)

    def _client(self) -> httpx2.AsyncClient:
        return oauth_client(self.url, self._resolve, self._reached_at)

    # --- renewal -------------------------------------------------------------------------------------

    async def _renew(self, challenge: AuthChallenge, parsed: BearerChallenge) -> dict[str, str]:
        if (
            self._grant_failure is not None
            and time.monotonic() < self._grant_failure[1] + GRANT_RETRY_SECONDS
        ):
            raise OAuthProblem(self._grant_failure[0])  # surfaced again, not retried meanwhile
        self._server_wants_dpop |= parsed.dpop
        async with self._client() as http:
            found = await discover(http, self.url, parsed.resource_metadata, may_guess=parsed.token_scheme)
            record = self._record_at(found.server.issuer)  # bound to its issuer: never another's
            tokens = tokens_of(record)
            if self._may_refresh(challenge, tokens):
                assert tokens is not None
                with contextlib.suppress(OAuthProblem):
                    renewed = tokens_of(await self._refresh_shared(record, tokens))
                    assert renewed is not None
                    return authorization(renewed)
            scope = self._scope(parsed, found, record)
            self._dpop = DpopProver.fresh() if self._wants_dpop() else None
            if self.settings.without_user:
                tokens, client = await self._without_user(http, found, scope)
            else:
                tokens, client = await self._in_browser(http, found, record, scope, parsed)
        self._save(found, client, tokens, scope)
        return authorization(tokens)

    async def _in_browser(
        self,
        http: httpx2.AsyncClient,
        found: Discovered,
        record: Record,
        scope: tuple[str, ...] | None,
        parsed: BearerChallenge,
    ) -> tuple[Tokens, Client]:
        user_agent = self._user_agent(found, scope, parsed, record)
        self._sign_ins += 1
        flow = BrowserSignIn(self.server, self.entry, self._secrets.client_secret, self.sign_in)
        tokens, client = await flow.run(
            http,
            user_agent=user_agent,
            found=found,
            record=record,
            scope=scope,
            step_up=parsed.insufficient_scope,
            dpop=self._dpop,
        )
        self._signed_in_for.append(frozenset(scope or ()))
        self._forced = False
        return tokens, client

    async def _without_user(
        self, http: httpx2.AsyncClient, found: Discovered, scope: tuple[str, ...] | None
    ) -> tuple[Tokens, Client]:
        client = self._configured_client(found)
        target = GrantTarget(found.server, found.resource, scope)
        try:
            tokens = await tokens_without_user(
                http, self.settings, self._secrets, client=client, target=target, dpop=self._dpop
            )
        except OAuthProblem as exc:
            why = f"the {self.settings.grant.replace('_', ' ')} grant failed: {exc}"
            self._grant_failure = (why, time.monotonic())
            raise OAuthProblem(why) from None
        self._forced = False
        return tokens, client

    def _configured_client(self, found: Discovered) -> Client:
        client = configured_client(self.entry, self._secrets.client_secret, found.server, self._signing_key())
        return client or Client("")

    def _signing_key(self) -> SigningKey | None:
        path = self.settings.private_key_file
        if path and self._key is None:
            self._key = load_signing_key(
                read_secret_file(path, "oauth.privateKeyFile"), f"oauth.privateKeyFile {path}"
            )
        return self._key

    def _wants_dpop(self) -> bool:
        return self.settings.dpop if self.settings.dpop is not None else self._server_wants_dpop

    def _may_refresh(self, challenge: AuthChallenge, tokens: Tokens | None) -> bool:
        """A 401 on a token that has a refresh token, unless that token came from a refresh."""
        if challenge.status != 401 or self._forced or tokens is None or not tokens.refresh_token:
            return False
        return self._refreshed is None or not (challenge.sent or "").endswith(f" {self._refreshed}")

    async def _renew_quietly(self, record: Record, tokens: Tokens) -> Record:
        """Ahead of expiry, without a user: a refresh, or the grant without a user again."""
        if tokens.refresh_token:
            return await self._refresh_shared(record, tokens)
        if not self.settings.without_user:
            return record
        found = Discovered(str(record.get("resource")), server_of(record), None)
        self._dpop = DpopProver.fresh() if tokens.token_type == "DPoP" else None
        scope = scope_list(record.get("requested_scope"))
        async with self._client() as http:
            fresh, client = await self._without_user(http, found, scope)
        self._save(found, client, fresh, scope)
        return self._record or record

    async def _refresh_shared(self, record: Record, tokens: Tokens) -> Record:
        """One refresh across processes: under the lock, a token another process renewed meanwhile
        is taken as it is; else the refresh token kept last (rotated, perhaps) is used."""
        key = self.kept.key(str(record.get("issuer")))
        async with refresh_lock(self.store.folder, key):
            stored = self.kept.at_issuer(str(record.get("issuer"))) or record
            kept = tokens_of(stored)
            renewed_elsewhere = kept is not None and kept.access_token != tokens.access_token
            if renewed_elsewhere and kept is not None and not kept.lapsing(REFRESH_AHEAD_SECONDS):
                self._keep(stored)
                return stored
            base = stored if kept is not None and kept.refresh_token else record
            return await seen_through(self._refresh_and_keep(base), REQUEST_SECONDS)

    async def _refresh_and_keep(self, record: Record) -> Record:
        """On a client of its own: the caller's may close while the answer is still coming."""
        previous = tokens_of(record)
        assert previous is not None
        async with self._client() as http:
            fresh = await self._refresh(http, record, previous)
        updated = with_tokens(record, fresh, previous)
        self._keep(updated)
        return updated

    async def _refresh(self, http: httpx2.AsyncClient, record: Record, tokens: Tokens) -> Tokens:
        assert tokens.refresh_token is not None
        server = server_of(record)
        client = configured_client(
            self.entry, self._secrets.client_secret, server, self._signing_key()
        ) or client_from_record(record.get("client"))
        if client is None:
            raise OAuthProblem("no client to refresh with")
        self._adopt_dpop(record)
        form, headers = client_authentication(
            client, server, refresh_form(tokens.refresh_token, str(record.get("resource")), None)
        )
        dpop = self._dpop if tokens.token_type == "DPoP" else None
        fresh = await token_request(http, server.token_endpoint, form, headers, dpop)
        self._refreshed = fresh.access_token
        return fresh

    # --- which scope, who to ask -------------------------------------------------------------------

    def _scope(self, parsed: BearerChallenge, found: Discovered, record: Record) -> tuple[str, ...] | None:
        configured = self.entry.scopes if self.entry is not None else None
        return sign_in_scope(parsed, found, record, configured)

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
        words = (
            f"needs {what} at {found.server.issuer}; nobody can be asked here. "
            f"Run `{login_command(self.server)}` in a terminal, then try again"
        )
        if found.guessed:  # no metadata at all: perhaps it wants a token instead
            words += '; or, if the server takes a token, put it in the entry\'s headers ("Authorization")'
        return words

    # --- keeping it --------------------------------------------------------------------------------

    def _record_at(self, issuer: str) -> Record:
        return {} if self._forced else self.kept.at_issuer(issuer) or {}

    def _use(self, record: Record | None) -> None:
        self._record = record
        self._adopt_dpop(record)

    def _adopt_dpop(self, record: Mapping[str, object] | None) -> None:
        pem = record.get("dpop_key") if record else None
        if isinstance(pem, str) and pem != self._dpop_pem:
            with contextlib.suppress(OAuthProblem):
                self._dpop, self._dpop_pem = DpopProver.from_pem(pem), pem

    def _keep(self, record: Record) -> None:
        self.kept.keep(record)
        self._use(record)

    def _save(self, found: Discovered, client: Client, tokens: Tokens, scope: tuple[str, ...] | None) -> None:
        registered = self.entry is None or not self.entry.client_id
        record = new_record(
            server=self.server,
            resource=found.resource,
            auth_server=found.server,
            client=client_record(client) if registered and client.client_id else None,
        )
        record["tokens"] = tokens_record(tokens)
        record["requested_scope"] = list(scope) if scope else None
        if self._dpop is not None and tokens.token_type == "DPoP":
            record["dpop_key"] = self._dpop_pem = self._dpop.key.pem()
        self._keep(record)

    def _remember_wanted(self, found: Discovered, record: Record, scope: tuple[str, ...] | None) -> None:
        """A headless step-up that could not happen: `mcp login` then asks for these scopes too."""
        if record and scope:
            self._keep({**record, "wanted_scope": list(scope)})
