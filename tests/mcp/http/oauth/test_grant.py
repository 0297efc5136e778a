"""The checks on what comes back to the callback (RFC 9207 and state) and what is asked for.
Load-bearing direction: every answer in the refused corpus yields no code — another attempt's
state, an `iss` of another issuer or one that only matches after URL normalization, no `iss`
where the server said it sends one — and an error is not shown before those checks. The accepted
corpus gets its code. Scope: the spec's order, the union on step-up, offline_access only where
listed."""

from __future__ import annotations

import base64
import hashlib

import pytest

from levelcode.mcp.http.oauth.grant import (
    Client,
    authorization_url,
    check_callback,
    client_authentication,
    new_attempt,
    select_scope,
    step_up_scope,
)
from levelcode.mcp.http.oauth.metadata import AuthServer, OAuthProblem

ISSUER = "https://auth.example.com"
SERVER = AuthServer(ISSUER, f"{ISSUER}/authorize", f"{ISSUER}/token", iss_parameter_supported=True)
QUIET = AuthServer(ISSUER, f"{ISSUER}/authorize", f"{ISSUER}/token")
ATTEMPT = new_attempt("http://127.0.0.1:5555/callback", ISSUER, ("read",))


@pytest.mark.parametrize(
    ("server", "params"),
    [
        (SERVER, {"state": "other", "code": "c", "iss": ISSUER}),
        (SERVER, {"code": "c", "iss": ISSUER}),
        (SERVER, {"state": ATTEMPT.state, "code": "c", "iss": "https://evil.example.com"}),
        (SERVER, {"state": ATTEMPT.state, "code": "c", "iss": ISSUER + "/"}),
        (SERVER, {"state": ATTEMPT.state, "code": "c", "iss": "https://AUTH.example.com"}),
        (SERVER, {"state": ATTEMPT.state, "code": "c", "iss": "https://auth.example.com:443"}),
        (SERVER, {"state": ATTEMPT.state, "code": "c"}),
        (QUIET, {"state": ATTEMPT.state, "code": "c", "iss": "https://evil.example.com"}),
        (QUIET, {"state": ATTEMPT.state, "iss": ISSUER}),
    ],
)
def test_an_answer_that_fails_a_check_yields_no_code(server: AuthServer, params: dict[str, str]) -> None:
    with pytest.raises(OAuthProblem):
        check_callback(params, ATTEMPT, server)


def test_an_error_of_another_issuer_is_not_shown() -> None:
    forged = {
        "state": ATTEMPT.state,
        "iss": "https://evil.example.com",
        "error": "access_denied",
        "error_description": "call +1-555 now",
    }
    with pytest.raises(OAuthProblem) as refused:
        check_callback(forged, ATTEMPT, SERVER)
    assert "555" not in str(refused.value)


@pytest.mark.parametrize(
    ("server", "params"),
    [
        (SERVER, {"state": ATTEMPT.state, "code": "the-code", "iss": ISSUER}),
        (QUIET, {"state": ATTEMPT.state, "code": "the-code", "iss": ISSUER}),
        (QUIET, {"state": ATTEMPT.state, "code": "the-code"}),
    ],
)
def test_a_matching_answer_gets_its_code(server: AuthServer, params: dict[str, str]) -> None:
    assert check_callback(params, ATTEMPT, server) == "the-code"


def test_the_authorization_url_carries_pkce_s256_the_resource_and_the_scope() -> None:
    url = authorization_url(SERVER, Client("cid"), ATTEMPT, "https://mcp.example.com/mcp")
    assert "code_challenge_method=S256" in url
    digest = hashlib.sha256(ATTEMPT.verifier.encode()).digest()
    assert "code_challenge=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode() in url
    assert "resource=https%3A%2F%2Fmcp.example.com%2Fmcp" in url
    assert "scope=read" in url
    assert ATTEMPT.verifier not in url


def test_scope_selection_follows_the_spec() -> None:
    offline = AuthServer(ISSUER, "a", "t", scopes_supported=("read", "offline_access"))
    assert select_scope(("a",), ("b", "c"), QUIET) == ("a",)
    assert select_scope(None, ("b", "c"), QUIET) == ("b", "c")
    assert select_scope(None, None, QUIET) is None
    assert select_scope(None, None, offline) is None  # nothing asked: not even offline_access
    assert select_scope(("a",), None, offline) == ("a", "offline_access")
    assert step_up_scope(("a", "offline_access"), ("w",)) == ("a", "offline_access", "w")


def test_client_authentication_as_registered_or_offered() -> None:
    secret = Client("cid", "s3cret")
    form, headers = client_authentication(secret, QUIET, {"grant_type": "x"})
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"cid:s3cret").decode()
    assert "client_secret" not in form
    post = AuthServer(ISSUER, "a", "t", token_auth_methods=("client_secret_post",))
    form, headers = client_authentication(secret, post, {})
    assert (form["client_secret"], headers) == ("s3cret", {})
    form, headers = client_authentication(Client("pub"), QUIET, {})
    assert (form, headers) == ({"client_id": "pub"}, {})
