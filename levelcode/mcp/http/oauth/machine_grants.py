"""Tokens without a user: the client-credentials grant (OAuth 2.1 §4.2, the MCP extension
io.modelcontextprotocol/oauth-client-credentials), workload identity (an RFC 7523 jwt-bearer grant
whose assertion is this workload's own token, SEP-1933), and enterprise-managed authorization (an
RFC 8693 token exchange at the enterprise IdP for an identity assertion grant — an ID-JAG — then
the jwt-bearer grant with it at the server's authorization server, SEP-990).

No browser, no prompt: these work headless. A refusal is final for the connection (the caller
does not try again with the same inputs, nor fall back to another grant). Never puts a token,
an assertion or a secret in an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2

from levelcode.mcp.config.oauth_grants import GrantSettings, IdentityAssertion
from levelcode.mcp.http.oauth.dpop import DpopProver
from levelcode.mcp.http.oauth.entry_secrets import OAuthSecrets, read_secret_file
from levelcode.mcp.http.oauth.grant import Client, client_authentication
from levelcode.mcp.http.oauth.metadata import AuthServer, OAuthProblem, acceptable_endpoint
from levelcode.mcp.http.oauth.requests import Tokens, token_endpoint_answer, token_request

JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"


@dataclass(frozen=True)
class GrantTarget:
    """Where the tokens are asked for, and for what."""

    server: AuthServer
    resource: str  # RFC 8707
    scope: tuple[str, ...] | None


async def tokens_without_user(
    http: httpx2.AsyncClient,
    settings: GrantSettings,
    secrets: OAuthSecrets,
    *,
    client: Client,
    target: GrantTarget,
    dpop: DpopProver | None,
) -> Tokens:
    form = await _grant_form(http, settings, secrets, client, target)
    if target.scope:
        form["scope"] = " ".join(target.scope)
    form["resource"] = target.resource
    form, headers = client_authentication(client, target.server, form)
    return await token_request(http, target.server.token_endpoint, form, headers, dpop)


async def _grant_form(
    http: httpx2.AsyncClient,
    settings: GrantSettings,
    secrets: OAuthSecrets,
    client: Client,
    target: GrantTarget,
) -> dict[str, str]:
    if settings.grant == "client_credentials":
        return {"grant_type": "client_credentials"}
    if settings.grant == "workload_identity":
        return {"grant_type": JWT_BEARER_GRANT, "assertion": _workload_token(settings, secrets)}
    if settings.grant == "identity_assertion" and settings.identity_assertion is not None:
        id_jag = await identity_assertion_grant(http, settings.identity_assertion, secrets, target)
        return {"grant_type": JWT_BEARER_GRANT, "assertion": id_jag}
    raise OAuthProblem(f"the grant {settings.grant!r} needs a user to sign in")


def _workload_token(settings: GrantSettings, secrets: OAuthSecrets) -> str:
    """Read each time: a platform rotates a workload's token file (Kubernetes, GitHub Actions …)."""
    if settings.workload_token_file:
        data = read_secret_file(
            settings.workload_token_file, "the workload token file (oauth.workloadTokenFile)"
        )
        return data.decode("ascii", "replace")
    if secrets.workload_token:
        return secrets.workload_token.strip()
    raise OAuthProblem("no workload token: set oauth.workloadToken or oauth.workloadTokenFile")


async def identity_assertion_grant(
    http: httpx2.AsyncClient, assertion: IdentityAssertion, secrets: OAuthSecrets, target: GrantTarget
) -> str:
    """RFC 8693 at the IdP: the user's ID token for an ID-JAG whose audience is the authorization
    server's issuer and whose resource is this MCP server."""
    if not acceptable_endpoint(assertion.token_endpoint):
        raise OAuthProblem("oauth.identityAssertion.tokenEndpoint must be https (or http to this machine)")
    form = {
        "grant_type": TOKEN_EXCHANGE_GRANT,
        "requested_token_type": ID_JAG_TYPE,
        "audience": target.server.issuer,
        "resource": target.resource,
        "subject_token": _id_token(assertion, secrets),
        "subject_token_type": ID_TOKEN_TYPE,
    }
    if target.scope:
        form["scope"] = " ".join(target.scope)
    idp = AuthServer(issuer=assertion.token_endpoint, authorization_endpoint="", token_endpoint="")
    idp_client = Client(assertion.client_id or "", secrets.idp_client_secret)
    form, headers = client_authentication(idp_client, idp, form) if assertion.client_id else (form, {})
    answer = await token_endpoint_answer(
        http, assertion.token_endpoint, form, headers, what="the identity provider's token exchange"
    )
    granted, kind = answer.get("access_token"), answer.get("issued_token_type")
    if kind != ID_JAG_TYPE or not isinstance(granted, str) or not granted:
        raise OAuthProblem(
            f"the identity provider answered the token exchange without an identity assertion grant "
            f"(issued_token_type {str(kind)[:60]!r})"
        )
    return granted


def _id_token(assertion: IdentityAssertion, secrets: OAuthSecrets) -> str:
    if assertion.id_token_file:
        data = read_secret_file(
            assertion.id_token_file, "the ID token file (oauth.identityAssertion.idTokenFile)"
        )
        return data.decode("ascii", "replace")
    if secrets.id_token:
        return secrets.id_token.strip()
    raise OAuthProblem("no ID token: set oauth.identityAssertion.idToken or idTokenFile")
