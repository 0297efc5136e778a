"""The user's sign-in in a browser (the authorization-code grant with PKCE): which client to be,
the localhost callback, the hand-off to the user agent, the checks on the answer (state, RFC 9207
`iss`) and the code's exchange for tokens (with a DPoP proof when the sign-in is sender-bound).

I/O at the edge (a loopback listener, the token request). Errors name servers and addresses,
never a code, a verifier or a token.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx2

from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.http.oauth.callback import CallbackListener
from levelcode.mcp.http.oauth.discovery import Discovered, NoSignInOffered
from levelcode.mcp.http.oauth.dpop import DpopProver
from levelcode.mcp.http.oauth.grant import (
    Client,
    authorization_url,
    check_callback,
    client_authentication,
    code_form,
    new_attempt,
)
from levelcode.mcp.http.oauth.metadata import OAuthProblem
from levelcode.mcp.http.oauth.registration import client_from_record, configured_client, registered_client
from levelcode.mcp.http.oauth.requests import EndpointMissing, Tokens, token_request
from levelcode.mcp.http.oauth.token_records import Record
from levelcode.mcp.protocol.sign_in import SignIn, SignInPrompt, UserAgent


@dataclass(frozen=True)
class BrowserSignIn:
    server: str  # the MCP server's name, as the user wrote it
    entry: OAuthEntry | None
    secret: str | None  # the expanded client secret
    sign_in: SignIn

    async def run(
        self,
        http: httpx2.AsyncClient,
        *,
        user_agent: UserAgent,
        found: Discovered,
        record: Record,
        scope: tuple[str, ...] | None,
        step_up: bool,
        dpop: DpopProver | None,
    ) -> tuple[Tokens, Client]:
        server = found.server
        client = configured_client(self.entry, self.secret, server) or client_from_record(
            record.get("client")
        )
        listener = await self._listen(client)
        try:
            client = await self._client_for(http, client, found, listener.redirect_uri, scope)
            attempt = new_attempt(listener.redirect_uri, server.issuer, scope)
            url = authorization_url(server, client, attempt, found.resource)
            prompt = SignInPrompt(
                self.server, found.resource, server.issuer, scope, url, listener.redirect_uri, step_up=step_up
            )
            answer = await self._wait_for_answer(user_agent, prompt, listener)
            code = check_callback(answer, attempt, server)
            form, headers = client_authentication(client, server, code_form(code, attempt, found.resource))
            tokens = await token_request(http, server.token_endpoint, form, headers, dpop)
        finally:
            await listener.close()
        return tokens, client

    async def _client_for(
        self,
        http: httpx2.AsyncClient,
        client: Client | None,
        found: Discovered,
        redirect_uri: str,
        scope: tuple[str, ...] | None,
    ) -> Client:
        if client is not None and (not client.redirect_uri or client.redirect_uri == redirect_uri):
            return client
        if self.entry is not None and self.entry.client_id:
            configured = configured_client(self.entry, self.secret, found.server)
            assert configured is not None
            return configured
        try:
            return await registered_client(http, found.server, redirect_uri, scope)
        except EndpointMissing:
            if found.guessed:  # no metadata and no /register: not an OAuth server after all
                raise NoSignInOffered("the server publishes no OAuth metadata and has no /register") from None
            raise

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


def _loopback_port(uri: str) -> int | None:
    parts = urlsplit(uri)
    return parts.port if parts.hostname in ("127.0.0.1", "localhost") else None
