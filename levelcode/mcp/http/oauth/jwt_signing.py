"""JWTs LevelCode signs: client assertions (RFC 7523 §2.2, private_key_jwt) and DPoP proofs
(RFC 9449), as compact JWS with ES256/ES384/ES512 (EC keys) or RS256 (RSA keys).

Pure apart from key generation; `cryptography` is imported only here and only when a key is used
(a server that needs none of this never loads it). Never verifies anything: LevelCode signs, the
authorization and resource servers check. A private key never leaves this module in a message.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from levelcode.mcp.http.oauth.metadata import OAuthProblem

_CURVE_ALGORITHMS = {"secp256r1": ("ES256", "P-256", 32), "secp384r1": ("ES384", "P-384", 48)}
_CURVE_ALGORITHMS["secp521r1"] = ("ES512", "P-521", 66)


@dataclass(frozen=True)
class SigningKey:
    """A private key and the JWS algorithm it signs with."""

    algorithm: str  # "ES256", "ES384", "ES512" or "RS256"
    key: Any = field(repr=False)  # a cryptography private key object

    def public_jwk(self) -> dict[str, str]:
        """The public half as a JWK (RFC 7517), members in RFC 7638 order."""
        numbers = self.key.public_key().public_numbers()
        if self.algorithm.startswith("RS"):
            return {"e": _b64_int(numbers.e), "kty": "RSA", "n": _b64_int(numbers.n)}
        _alg, curve, size = _CURVE_ALGORITHMS[self.key.curve.name]
        return {"crv": curve, "kty": "EC", "x": _b64_int(numbers.x, size), "y": _b64_int(numbers.y, size)}

    def thumbprint(self) -> str:
        """RFC 7638 JWK SHA-256 thumbprint of the public key (what a DPoP token's cnf.jkt names)."""
        canonical = json.dumps(self.public_jwk(), separators=(",", ":"), sort_keys=True)
        return b64url(hashlib.sha256(canonical.encode()).digest())

    def pem(self) -> str:
        """The private key as unencrypted PKCS#8 PEM, for the credential store (0600 file or keyring)."""
        from cryptography.hazmat.primitives import serialization

        return str(
            self.key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ).decode("ascii")
        )


def load_signing_key(pem: bytes, where: str) -> SigningKey:
    """A PEM private key (EC P-256/384/521 or RSA ≥ 2048 bits), unencrypted; `where` names it in errors."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError):
        raise OAuthProblem(f"{where} is not an unencrypted PEM private key") from None
    if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name in _CURVE_ALGORITHMS:
        return SigningKey(_CURVE_ALGORITHMS[key.curve.name][0], key)
    if isinstance(key, rsa.RSAPrivateKey) and key.key_size >= 2048:
        return SigningKey("RS256", key)
    raise OAuthProblem(f"{where} must be an EC (P-256, P-384, P-521) or RSA (2048 bits or more) private key")


def new_signing_key() -> SigningKey:
    """A fresh P-256 key (DPoP proofs)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    return SigningKey("ES256", ec.generate_private_key(ec.SECP256R1()))


def sign_jwt(key: SigningKey, claims: Mapping[str, object], header: Mapping[str, object]) -> str:
    """A compact JWS: base64url(header).base64url(claims).base64url(signature)."""
    head = {"alg": key.algorithm, **header}
    signing_input = f"{_b64_json(head)}.{_b64_json(claims)}".encode("ascii")
    return f"{signing_input.decode('ascii')}.{b64url(_signature(key, signing_input))}"


def _signature(key: SigningKey, data: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    if key.algorithm == "RS256":
        return bytes(key.key.sign(data, padding.PKCS1v15(), hashes.SHA256()))
    digest = {"ES256": hashes.SHA256(), "ES384": hashes.SHA384(), "ES512": hashes.SHA512()}[key.algorithm]
    r, s = decode_dss_signature(key.key.sign(data, ec.ECDSA(digest)))
    size = _CURVE_ALGORITHMS[key.key.curve.name][2]
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")  # JWS wants R || S, not DER (RFC 7518 §3.4)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64_json(value: Mapping[str, object]) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def _b64_int(value: int, size: int | None = None) -> str:
    length = size if size is not None else max(1, (value.bit_length() + 7) // 8)
    return b64url(value.to_bytes(length, "big"))
