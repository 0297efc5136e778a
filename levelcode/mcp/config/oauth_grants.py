"""The keys of a remote server's `oauth` entry that say how tokens are had without a user, and
whether they are sender-constrained:

    "grant": "client_credentials"            (OAuth 2.1 §4.2; no user, no browser)
             "workload_identity"             (RFC 7523 jwt-bearer with this workload's token)
             "identity_assertion"            (enterprise-managed: RFC 8693 exchange at the IdP for
                                              an ID-JAG, then jwt-bearer at the server's own)
             "authorization_code"            (the default: the user signs in in a browser)
    "clientAuth": "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none"
    "privateKeyFile": "~/.config/acme/mcp-client.pem"     (private_key_jwt, RFC 7523 §2.2)
    "dpop": true | false                     (RFC 9449; unset: when the server's challenge asks)
    "workloadToken": "${TOKEN}" | "workloadTokenFile": "/var/run/secrets/tokens/mcp"
    "identityAssertion": {"tokenEndpoint": "https://idp.example.com/oauth2/token",
                          "idToken": "${ID_TOKEN}" | "idTokenFile": "...",
                          "clientId": "...", "clientSecret": "${IDP_SECRET}"}

Secrets are never written here: a token or secret is a `${VAR}` reference or a file path.
Pure: checks shapes, never expands, never reads a file. A bad key is reported and ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

PURE = True

Report = Callable[[str, str], None]
GRANTS = ("authorization_code", "client_credentials", "workload_identity", "identity_assertion")
CLIENT_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
GRANT_KEYS = frozenset(
    {
        "grant",
        "clientAuth",
        "privateKeyFile",
        "dpop",
        "workloadToken",
        "workloadTokenFile",
        "identityAssertion",
    }
)
_ASSERTION_KEYS = frozenset({"tokenEndpoint", "idToken", "idTokenFile", "clientId", "clientSecret"})
_ONE_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


@dataclass(frozen=True)
class IdentityAssertion:
    """Where and with what LevelCode asks the enterprise IdP for an identity assertion grant."""

    token_endpoint: str
    id_token: str | None = None  # "${VAR}", as written
    id_token_file: str | None = None
    client_id: str | None = None  # LevelCode's client at the IdP
    client_secret: str | None = None  # "${VAR}", as written


@dataclass(frozen=True)
class GrantSettings:
    grant: str = "authorization_code"
    client_auth: str | None = None  # None: as registered, else what the server offers
    private_key_file: str | None = None
    dpop: bool | None = None  # None: DPoP when the server's challenge uses the DPoP scheme
    workload_token: str | None = None  # "${VAR}", as written
    workload_token_file: str | None = None
    identity_assertion: IdentityAssertion | None = None

    @property
    def without_user(self) -> bool:
        return self.grant != "authorization_code"

    def file_references(self) -> list[tuple[str, str]]:
        """(key, path) of every file a sign-in would read."""
        found = [("privateKeyFile", self.private_key_file), ("workloadTokenFile", self.workload_token_file)]
        if self.identity_assertion is not None:
            found.append(("identityAssertion.idTokenFile", self.identity_assertion.id_token_file))
        return [(key, path) for key, path in found if path]

    def encoded(self) -> list[object]:
        assertion = self.identity_assertion
        return [
            self.grant,
            self.client_auth,
            self.private_key_file,
            self.dpop,
            self.workload_token,
            self.workload_token_file,
            None
            if assertion is None
            else [
                assertion.token_endpoint,
                assertion.id_token,
                assertion.id_token_file,
                assertion.client_id,
                assertion.client_secret,
            ],
        ]


def parse_grant_settings(value: Mapping[object, object], report: Report) -> GrantSettings:
    settings = GrantSettings(
        grant=_choice(value.get("grant"), GRANTS, "grant", report) or "authorization_code",
        client_auth=_choice(value.get("clientAuth"), CLIENT_AUTH_METHODS, "clientAuth", report),
        private_key_file=_path(value.get("privateKeyFile"), "oauth.privateKeyFile", report),
        dpop=_flag(value.get("dpop"), report),
        workload_token=_reference(value.get("workloadToken"), "oauth.workloadToken", report),
        workload_token_file=_path(value.get("workloadTokenFile"), "oauth.workloadTokenFile", report),
        identity_assertion=_identity_assertion(value.get("identityAssertion"), report),
    )
    return _consistent(settings, value, report)


def _consistent(settings: GrantSettings, value: Mapping[object, object], report: Report) -> GrantSettings:
    """A grant that lacks what it needs is reported and the entry falls back to the browser sign-in."""
    missing = None
    if settings.client_auth == "private_key_jwt" and not settings.private_key_file:
        missing = 'clientAuth "private_key_jwt" needs "privateKeyFile"'
    elif settings.grant == "client_credentials" and not value.get("clientId"):
        missing = 'grant "client_credentials" needs "clientId" (and "clientSecret" or "privateKeyFile")'
    elif settings.grant == "client_credentials" and not (
        value.get("clientSecret") or settings.private_key_file
    ):
        missing = 'grant "client_credentials" needs "clientSecret" or "privateKeyFile"'
    elif settings.grant == "workload_identity" and not (
        settings.workload_token or settings.workload_token_file
    ):
        missing = 'grant "workload_identity" needs "workloadToken" or "workloadTokenFile"'
    elif settings.grant == "identity_assertion" and settings.identity_assertion is None:
        missing = 'grant "identity_assertion" needs "identityAssertion"'
    if missing is None:
        return settings
    report("oauth.grant", f"{missing}; ignored (the browser sign-in is used)")
    return GrantSettings(dpop=settings.dpop)


def _identity_assertion(value: object, report: Report) -> IdentityAssertion | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        report("oauth.identityAssertion", "must be an object; ignored")
        return None
    for key in sorted(set(map(str, value)) - _ASSERTION_KEYS):
        report(
            f"oauth.identityAssertion.{key}",
            f"unknown key; expected one of {', '.join(sorted(_ASSERTION_KEYS))}",
        )
    endpoint = value.get("tokenEndpoint")
    parts = urlsplit(endpoint) if isinstance(endpoint, str) else None
    if parts is None or parts.scheme not in ("https", "http") or not parts.hostname:
        report("oauth.identityAssertion.tokenEndpoint", "must be the IdP's token endpoint URL; ignored")
        return None
    assertion = IdentityAssertion(
        token_endpoint=str(endpoint),
        id_token=_reference(value.get("idToken"), "oauth.identityAssertion.idToken", report),
        id_token_file=_path(value.get("idTokenFile"), "oauth.identityAssertion.idTokenFile", report),
        client_id=_text(value.get("clientId"), "oauth.identityAssertion.clientId", report),
        client_secret=_reference(value.get("clientSecret"), "oauth.identityAssertion.clientSecret", report),
    )
    if not (assertion.id_token or assertion.id_token_file):
        report("oauth.identityAssertion", 'needs "idToken" (a ${VAR}) or "idTokenFile"; ignored')
        return None
    return assertion


def _choice(value: object, allowed: tuple[str, ...], key: str, report: Report) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        report(f"oauth.{key}", f"must be one of {', '.join(allowed)}; ignored")
        return None
    return str(value)


def _flag(value: object, report: Report) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    report("oauth.dpop", "must be true or false; ignored")
    return None


def _reference(value: object, key: str, report: Report) -> str | None:
    """A secret: only as a `${VAR}` reference, so no token is ever written into a settings file."""
    if value is None:
        return None
    if not isinstance(value, str) or not _ONE_REFERENCE.fullmatch(value):
        report(key, "must be a ${VAR} reference (secrets stay out of settings files); ignored")
        return None
    return value


def _path(value: object, key: str, report: Report) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        report(key, "must be a file path; ignored")
        return None
    return value


def _text(value: object, key: str, report: Report) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        report(key, "must be a non-empty string; ignored")
        return None
    return value
