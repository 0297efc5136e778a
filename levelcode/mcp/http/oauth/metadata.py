"""Where OAuth metadata lives and what a document must say before it is used: protected-resource
metadata (RFC 9728) and authorization-server metadata (RFC 8414, OpenID Connect Discovery).

Pure: builds URLs and checks documents, never fetches. A document that fails a check is refused
whole (`OAuthProblem`), never used in part: an issuer that differs from the one asked for, a
resource that is not this server, endpoints over plain http to another machine, no PKCE S256.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from levelcode.mcp.config.remote_urls import is_loopback_host

PURE = True

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"


class OAuthProblem(Exception):
    """Why signing in cannot go on, in words fit for the user (never a secret)."""


@dataclass(frozen=True)
class ProtectedResource:
    resource: str  # what tokens are requested for (RFC 8707 `resource`)
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None


@dataclass(frozen=True)
class AuthServer:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: tuple[str, ...] | None = None
    token_auth_methods: tuple[str, ...] | None = None
    iss_parameter_supported: bool = False
    client_id_metadata_document_supported: bool = False
    revocation_endpoint: str | None = None  # RFC 7009, used at `mcp logout`
    dpop_algorithms: tuple[str, ...] | None = None  # dpop_signing_alg_values_supported (RFC 9449)


def canonical_resource(url: str) -> str:
    """The server's canonical URI (RFC 8707 §2): lowercase scheme and host, no query, no fragment,
    no trailing slash."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


def protected_resource_urls(server_url: str, from_header: str | None) -> list[str]:
    """Where to look, in the spec's order: the challenge's `resource_metadata`; else the
    well-known URI at the endpoint's path, then at the root."""
    if from_header and urlsplit(from_header).scheme in ("http", "https"):
        return [from_header]
    parts = urlsplit(server_url)
    path = parts.path.rstrip("/")
    found = [urlunsplit((parts.scheme, parts.netloc, PRM_WELL_KNOWN + path, "", ""))] if path else []
    return [*found, urlunsplit((parts.scheme, parts.netloc, PRM_WELL_KNOWN, "", ""))]


def auth_server_urls(issuer: str) -> list[str]:
    """RFC 8414 §3.1 with path insertion, then OpenID Connect Discovery inserted and appended."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")

    def at(path_: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, path_, "", ""))

    if not path:
        return [at(OAUTH_WELL_KNOWN), at(OIDC_WELL_KNOWN)]
    return [at(OAUTH_WELL_KNOWN + path), at(OIDC_WELL_KNOWN + path), at(path + OIDC_WELL_KNOWN)]


def parse_protected_resource(doc: Mapping[str, object], server_url: str) -> ProtectedResource:
    """RFC 9728 §3.3: the document must be about this server — its `resource` the server's URL,
    or a prefix of it on the same origin (metadata found at the root names the origin)."""
    resource = doc.get("resource")
    if not isinstance(resource, str) or not resource_covers(resource, server_url):
        shown = resource[:200] if isinstance(resource, str) else "(none)"
        raise OAuthProblem(
            f"the server's protected-resource metadata is for {shown!r}, not for "
            f"{canonical_resource(server_url)} — LevelCode will not sign in for another resource"
        )
    servers = doc.get("authorization_servers")
    if not isinstance(servers, list) or not servers:
        raise OAuthProblem("the server's protected-resource metadata names no authorization server")
    usable = tuple(s for s in servers if isinstance(s, str) and acceptable_endpoint(s))
    if not usable:
        raise OAuthProblem("the server names no authorization server LevelCode may use (https only)")
    return ProtectedResource(resource, usable, _strings(doc.get("scopes_supported")))


def resource_covers(resource: str, server_url: str) -> bool:
    """Same origin, and the resource's path is the server's path or a parent of it."""
    ours, theirs = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (ours.scheme, ours.netloc) != (theirs.scheme, theirs.netloc):
        return False
    return theirs.path in ("", ours.path) or ours.path.startswith(theirs.path + "/")


def parse_auth_server(doc: Mapping[str, object], issuer: str) -> AuthServer:
    """RFC 8414 §3.3: `issuer` identical to the one the URL was built from; PKCE S256 offered."""
    if doc.get("issuer") != issuer:
        shown = str(doc.get("issuer"))[:200]
        raise OAuthProblem(
            f"the authorization server's metadata names issuer {shown!r}, not {issuer!r}: refused"
        )
    methods = _strings(doc.get("code_challenge_methods_supported"))
    if methods is None or "S256" not in methods:
        raise OAuthProblem(
            f"the authorization server {issuer} does not offer PKCE with S256, which LevelCode requires"
        )
    return _auth_server(doc, issuer)


def issuer_on_origin(named: object, origin: str) -> str | None:
    """2025-03-26 puts an MCP server's authorization-server metadata at its origin's root whatever
    the issuer's path, so the issuer such a document names can be bound to that origin only: the
    origin itself or a path on it (spelled exactly as the origin, no query, no fragment) is
    returned, to be used as the issuer from then on; anything else is None."""
    if not isinstance(named, str) or "?" in named or "#" in named:
        return None
    parts, base = urlsplit(named), urlsplit(origin)
    same = base.netloc and (parts.scheme, parts.netloc) == (base.scheme, base.netloc)
    return named if same else None


def fallback_auth_server(server_url: str) -> AuthServer:
    """2025-03-26: the server's origin as its authorization server, with the default endpoints."""
    parts = urlsplit(server_url)
    origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    return AuthServer(origin, f"{origin}/authorize", f"{origin}/token", f"{origin}/register")


def _auth_server(doc: Mapping[str, object], issuer: str) -> AuthServer:
    endpoints: dict[str, str | None] = {}
    for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"):
        value = doc.get(key)
        if value is not None and (not isinstance(value, str) or not acceptable_endpoint(value)):
            raise OAuthProblem(f"the authorization server's {key} is not an https URL LevelCode may use")
        endpoints[key] = value if isinstance(value, str) else None
    if not endpoints["authorization_endpoint"] or not endpoints["token_endpoint"]:
        raise OAuthProblem(f"the authorization server {issuer} names no authorization or token endpoint")
    return AuthServer(
        issuer=issuer,
        authorization_endpoint=str(endpoints["authorization_endpoint"]),
        token_endpoint=str(endpoints["token_endpoint"]),
        registration_endpoint=endpoints["registration_endpoint"],
        scopes_supported=_strings(doc.get("scopes_supported")),
        token_auth_methods=_strings(doc.get("token_endpoint_auth_methods_supported")),
        iss_parameter_supported=doc.get("authorization_response_iss_parameter_supported") is True,
        client_id_metadata_document_supported=doc.get("client_id_metadata_document_supported") is True,
        revocation_endpoint=endpoints["revocation_endpoint"],
        dpop_algorithms=_strings(doc.get("dpop_signing_alg_values_supported")),
    )


def acceptable_endpoint(url: str) -> bool:
    """https, or http to this machine (OAuth 2.1 §1.5: never plain http elsewhere)."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return bool(parts.hostname)
    return parts.scheme == "http" and is_loopback_host(parts.hostname or "")


def _strings(value: object) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(item for item in value if isinstance(item, str))
