"""DPoP (RFC 9449): sender-constrained tokens. One key per sign-in, kept with its tokens; a fresh
proof JWT on every request to the token endpoint and to the MCP server (`htm`, `htu` without query
or fragment, `iat`, a unique `jti`, `ath` binding the access token, and the server's `nonce` when
it gave one); nonces remembered per origin, as each server (authorization or resource) hands out
its own (§8, §9).

Pure apart from the clock and randomness. A proof holds no secret but the public key; the private
key is never shown.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from levelcode.mcp.http.oauth.jwt_signing import (
    SigningKey,
    b64url,
    load_signing_key,
    new_signing_key,
    sign_jwt,
)

DPOP_SCHEME = "DPoP"
USE_DPOP_NONCE = "use_dpop_nonce"
_MAX_NONCE = 512


@dataclass
class DpopProver:
    key: SigningKey
    nonces: dict[str, str] = field(default_factory=dict)  # origin → the latest nonce it gave

    @classmethod
    def fresh(cls) -> DpopProver:
        return cls(new_signing_key())

    @classmethod
    def from_pem(cls, pem: str) -> DpopProver:
        return cls(load_signing_key(pem.encode("ascii"), "the stored DPoP key"))

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        claims: dict[str, object] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        nonce = self.nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        return sign_jwt(self.key, claims, {"typ": "dpop+jwt", "jwk": self.key.public_jwk()})

    def remember_nonce(self, url: str, nonce: str | None) -> bool:
        """Keep a server's `DPoP-Nonce`; True when it is new (a retry with it may succeed)."""
        if not nonce or len(nonce) > _MAX_NONCE or not all(0x21 <= ord(c) <= 0x7E for c in nonce):
            return False
        origin = _origin(url)
        if self.nonces.get(origin) == nonce:
            return False
        self.nonces[origin] = nonce
        return True


def target_uri(url: str) -> str:
    """`htu`: the request's URI without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
