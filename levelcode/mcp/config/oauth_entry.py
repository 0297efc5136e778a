"""A remote server's `oauth` entry: how LevelCode signs in to it, when the defaults do not fit.

    "oauth": {"clientId": "...", "clientSecret": "${SECRET}", "scopes": ["read"],
              "callbackPort": 8976, "clientMetadataUrl": "https://example.com/client.json"}
    "oauth": false                       never sign in (a 401 is then an error)

and, for sign-ins without a user (oauth_grants.py): "grant", "clientAuth", "privateKeyFile",
"dpop", "workloadToken"/"workloadTokenFile", "identityAssertion".

Pure: checks shapes, never expands `${VAR}` and never reads a file (both happen at connect time).
A bad key is reported and ignored; the server still loads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from levelcode.mcp.config.oauth_grants import GRANT_KEYS, GrantSettings, parse_grant_settings

PURE = True

Report = Callable[[str, str], None]
_KEYS = frozenset({"clientId", "clientSecret", "scopes", "callbackPort", "clientMetadataUrl", *GRANT_KEYS})


@dataclass(frozen=True)
class OAuthEntry:
    enabled: bool = True
    client_id: str | None = None  # pre-registered with the authorization server
    client_secret: str | None = None  # as written: may be ${VAR}
    scopes: tuple[str, ...] | None = None  # asked for instead of what the server suggests
    callback_port: int | None = None  # for a client registered with a fixed redirect URI
    client_metadata_url: str | None = None  # a client ID metadata document you host (https)
    grants: GrantSettings = field(default_factory=GrantSettings)  # grants without a user, DPoP

    def encoded(self) -> list[object]:
        """What the launch fingerprint covers of it (secrets as written, never expanded). The grant
        settings are appended only when written, so approvals of entries without them stay valid."""
        encoded: list[object] = [
            self.enabled,
            self.client_id,
            self.client_secret,
            list(self.scopes) if self.scopes is not None else None,
            self.callback_port,
            self.client_metadata_url,
        ]
        if self.grants != GrantSettings():
            encoded.append(self.grants.encoded())
        return encoded


def parse_oauth_entry(value: object, report: Report) -> OAuthEntry | None:
    if value is None:
        return None
    if value is False:
        return OAuthEntry(enabled=False)
    if not isinstance(value, Mapping):
        report("oauth", "must be an object or false; ignored")
        return None
    for key in sorted(set(map(str, value)) - _KEYS):
        report(f"oauth.{key}", f"unknown key; expected one of {', '.join(sorted(_KEYS))}")
    return OAuthEntry(
        client_id=_text(value, "clientId", report),
        client_secret=_text(value, "clientSecret", report),
        scopes=_scopes(value.get("scopes"), report),
        callback_port=_port(value.get("callbackPort"), report),
        client_metadata_url=_metadata_url(value.get("clientMetadataUrl"), report),
        grants=parse_grant_settings(value, report),
    )


def _text(value: Mapping[object, object], key: str, report: Report) -> str | None:
    item = value.get(key)
    if item is None:
        return None
    if not isinstance(item, str) or not item:
        report(f"oauth.{key}", "must be a non-empty string; ignored")
        return None
    return item


def _scopes(value: object, report: Report) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(s, str) and s and " " not in s for s in value):
        report("oauth.scopes", "must be a list of scope names without spaces; ignored")
        return None
    return tuple(value)


def _port(value: object, report: Report) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1024 <= value <= 65535:
        report("oauth.callbackPort", "must be a port number from 1024 to 65535; ignored")
        return None
    return value


def _metadata_url(value: object, report: Report) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme != "https" or not parts.hostname or parts.path in ("", "/"):
        report("oauth.clientMetadataUrl", "must be an https URL with a path; ignored")
        return None
    return str(value)
