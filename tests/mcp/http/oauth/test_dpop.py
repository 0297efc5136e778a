"""DPoP proofs and client assertions as the servers check them (RFC 9449 §4.2-4.3, RFC 7523 §3),
verified here with the cryptography package the way a server would. Load-bearing direction: every
proof verifies against the public key it carries, names the request's method and URI without
query or fragment, is unique (jti), binds the access token (ath) when one is sent, and carries a
server's nonce only to that server's origin; the private key never appears in a proof."""

from __future__ import annotations

import base64
import hashlib
import json

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from levelcode.mcp.http.oauth.dpop import DpopProver
from levelcode.mcp.http.oauth.grant import Client, client_authentication
from levelcode.mcp.http.oauth.jwt_signing import load_signing_key
from levelcode.mcp.http.oauth.metadata import AuthServer


def _b64decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def decoded(jwt: str) -> tuple[dict[str, object], dict[str, object], bytes, bytes]:
    head, body, signature = jwt.split(".")
    return (
        json.loads(_b64decode(head)),
        json.loads(_b64decode(body)),
        f"{head}.{body}".encode(),
        _b64decode(signature),
    )


def verify_es256(jwk: dict[str, object], signed: bytes, signature: bytes) -> None:
    x, y = (int.from_bytes(_b64decode(str(jwk[k])), "big") for k in ("x", "y"))
    public = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    public.verify(der, signed, ec.ECDSA(hashes.SHA256()))  # raises if it does not verify


def test_a_proof_verifies_and_says_which_request_it_is_for() -> None:
    prover = DpopProver.fresh()
    header, claims, signed, signature = decoded(
        prover.proof("post", "https://mcp.example.com/mcp?x=1#f", "at-1")
    )
    assert header["typ"] == "dpop+jwt"
    assert header["alg"] == "ES256"
    jwk = header["jwk"]
    assert isinstance(jwk, dict)
    assert "d" not in jwk  # the public key only
    verify_es256(jwk, signed, signature)
    assert claims["htm"] == "POST"
    assert claims["htu"] == "https://mcp.example.com/mcp"
    assert claims["ath"] == base64.urlsafe_b64encode(hashlib.sha256(b"at-1").digest()).rstrip(b"=").decode()
    assert isinstance(claims["iat"], int)
    _h, again, _s, _sig = decoded(prover.proof("POST", "https://mcp.example.com/mcp"))
    assert again["jti"] != claims["jti"]
    assert "ath" not in again  # a token request carries no access token


def test_a_nonce_goes_back_only_to_the_origin_that_gave_it() -> None:
    prover = DpopProver.fresh()
    assert prover.remember_nonce("https://as.example.com/token", "n-as")
    assert not prover.remember_nonce("https://as.example.com/other", "n-as")  # not new: no retry
    assert not prover.remember_nonce("https://as.example.com/token", "bad nonce\n")
    _h, at_as, _s, _sig = decoded(prover.proof("POST", "https://as.example.com/token"))
    _h, at_rs, _s, _sig = decoded(prover.proof("POST", "https://mcp.example.com/mcp", "at"))
    assert at_as["nonce"] == "n-as"
    assert "nonce" not in at_rs


def test_the_thumbprint_is_rfc_7638s_and_the_key_survives_the_store() -> None:
    prover = DpopProver.fresh()
    jwk = prover.key.public_jwk()
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
    expected = base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()
    assert prover.key.thumbprint() == expected
    assert DpopProver.from_pem(prover.key.pem()).key.thumbprint() == expected


def test_private_key_jwt_signs_an_assertion_for_the_issuer() -> None:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key = load_signing_key(pem, "test key")
    server = AuthServer(
        "https://as.example.com", "", "https://as.example.com/token", token_auth_methods=("private_key_jwt",)
    )
    form, headers = client_authentication(
        Client("bot", assertion_key=key), server, {"grant_type": "client_credentials"}
    )
    assert headers == {}
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    header, claims, signed, signature = decoded(form["client_assertion"])
    assert header["alg"] == "RS256"
    private.public_key().verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
    assert (claims["iss"], claims["sub"], claims["aud"]) == ("bot", "bot", "https://as.example.com")
    assert isinstance(claims["exp"], int)
    assert isinstance(claims["iat"], int)
    assert 0 < claims["exp"] - claims["iat"] <= 60
