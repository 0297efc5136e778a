"""What metadata LevelCode accepts before signing in. Load-bearing direction: every document in the
refused corpus is refused whole — a protected resource that is another server (another origin, a
sibling path), an authorization server whose issuer differs by a byte, endpoints over plain http to
another machine, no PKCE S256. The accepted corpus: the forms real servers publish (root resource,
path-based issuer, OpenID metadata with S256) are used."""

from __future__ import annotations

import pytest

from levelcode.mcp.http.oauth.metadata import (
    OAuthProblem,
    auth_server_urls,
    canonical_resource,
    parse_auth_server,
    parse_protected_resource,
    protected_resource_urls,
)

SERVER = "https://mcp.example.com/api/mcp"
ISSUER = "https://auth.example.com/tenant1"


def as_doc(**changes: object) -> dict[str, object]:
    doc: dict[str, object] = {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/authorize",
        "token_endpoint": f"{ISSUER}/token",
        "code_challenge_methods_supported": ["S256"],
    }
    doc.update(changes)
    return {k: v for k, v in doc.items() if v is not None}


@pytest.mark.parametrize(
    "resource",
    [
        "https://evil.example.com/api/mcp",
        "https://mcp.example.com:8443/api/mcp",
        "http://mcp.example.com/api/mcp",
        "https://mcp.example.com/api/mcp2",
        "https://mcp.example.com/other",
        "https://mcp.example.com/api/mcp/deeper",
    ],
)
def test_a_protected_resource_that_is_not_this_server_is_refused(resource: str) -> None:
    with pytest.raises(OAuthProblem, match="not sign in for another resource"):
        parse_protected_resource({"resource": resource, "authorization_servers": [ISSUER]}, SERVER)


@pytest.mark.parametrize(
    ("resource", "server"),
    [
        ("https://mcp.example.com/api", "https://mcp.example.com/api-evil/mcp"),
        ("https://mcp.example.com/api", "https://mcp.example.com/apiary"),
        ("https://mcp.example.com/ap", "https://mcp.example.com/api/mcp"),
        ("https://mcp.example.com/api/mc", "https://mcp.example.com/api/mcp"),
    ],
)
def test_a_resource_that_is_only_a_string_prefix_of_the_servers_path_is_refused(
    resource: str, server: str
) -> None:
    """A parent is a whole path segment: `/api` covers `/api/mcp`, never the sibling `/api-evil/mcp`."""
    with pytest.raises(OAuthProblem, match="not sign in for another resource"):
        parse_protected_resource({"resource": resource, "authorization_servers": [ISSUER]}, server)


@pytest.mark.parametrize(
    "resource",
    [
        "https://mcp.example.com/api/mcp",
        "https://MCP.example.com/api/mcp/",
        "https://mcp.example.com",
        "https://mcp.example.com/api",
    ],
)
def test_this_server_or_a_parent_of_it_on_its_origin_is_accepted(resource: str) -> None:
    found = parse_protected_resource({"resource": resource, "authorization_servers": [ISSUER]}, SERVER)
    assert found.resource == resource


@pytest.mark.parametrize(
    "servers", [[], ["http://auth.example.com"], ["ftp://auth.example.com"], "https://auth.example.com"]
)
def test_no_usable_authorization_server_is_refused(servers: object) -> None:
    with pytest.raises(OAuthProblem):
        parse_protected_resource({"resource": SERVER, "authorization_servers": servers}, SERVER)


@pytest.mark.parametrize(
    "doc",
    [
        as_doc(issuer="https://attacker.example.com/tenant1"),
        as_doc(issuer=ISSUER + "/"),
        as_doc(issuer="https://AUTH.example.com/tenant1"),
        as_doc(issuer=None),
        as_doc(code_challenge_methods_supported=None),
        as_doc(code_challenge_methods_supported=["plain"]),
        as_doc(token_endpoint="http://auth.example.com/token"),
        as_doc(authorization_endpoint="http://10.0.0.1/authorize"),
        as_doc(registration_endpoint="javascript:alert(1)"),
        as_doc(token_endpoint=None),
    ],
)
def test_authorization_server_metadata_that_fails_a_check_is_refused(doc: dict[str, object]) -> None:
    with pytest.raises(OAuthProblem):
        parse_auth_server(doc, ISSUER)


@pytest.mark.parametrize(
    "doc",
    [
        as_doc(),
        as_doc(
            code_challenge_methods_supported=["plain", "S256"], registration_endpoint=f"{ISSUER}/register"
        ),
        as_doc(token_endpoint="http://127.0.0.1:9000/token"),  # loopback http: this machine
    ],
)
def test_good_authorization_server_metadata_is_used(doc: dict[str, object]) -> None:
    assert parse_auth_server(doc, ISSUER).issuer == ISSUER


def test_discovery_urls_follow_the_spec_order() -> None:
    assert protected_resource_urls(SERVER, None) == [
        "https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp",
        "https://mcp.example.com/.well-known/oauth-protected-resource",
    ]
    assert protected_resource_urls(SERVER, "https://mcp.example.com/prm.json") == [
        "https://mcp.example.com/prm.json"
    ]
    assert auth_server_urls(ISSUER) == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert auth_server_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]


def test_the_canonical_resource_drops_what_rfc_8707_drops() -> None:
    assert canonical_resource("HTTPS://MCP.Example.com:8443/mcp/?x=1#f") == "https://mcp.example.com:8443/mcp"
