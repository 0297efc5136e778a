"""Launch fingerprints and trust decisions for gate G1 (workspace servers start only when trusted).

Pure: never reads or writes the trust store (trust_store.py does). Trust is keyed on what would
run, not on the server's name: a SHA-256 over a structural encoding of the command, its
arguments, its env (sorted `[key, value]` pairs, values as written, unexpanded) and its cwd.
Structural means a JSON array, never `k=v` text, so `{"a": "b=c"}` and `{"a=b": "c"}` differ.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from levelcode.mcp.config import HttpServerSpec, ServerSpec

FINGERPRINT_SCHEME = "levelcode-launch/1"

TrustState = Literal["never_approved", "approved", "changed"]


def launch_encoding(spec: ServerSpec) -> str:
    """The canonical text the fingerprint hashes: a JSON array, one slot per part of the launch."""
    if isinstance(spec, HttpServerSpec):
        parts: list[object] = ["http", spec.url, sorted([k, v] for k, v in spec.headers)]
    else:
        parts = ["stdio", spec.command, list(spec.args), sorted([k, v] for k, v in spec.env), spec.cwd]
    return json.dumps([FINGERPRINT_SCHEME, *parts], ensure_ascii=False, separators=(",", ":"))


def launch_fingerprint(spec: ServerSpec) -> str:
    return hashlib.sha256(launch_encoding(spec).encode("utf-8", "surrogatepass")).hexdigest()


def trust_state(spec: ServerSpec, recorded: str | None) -> TrustState:
    """Never approved, approved, or approved once and then changed (which must ask again)."""
    if recorded is None:
        return "never_approved"
    return "approved" if recorded == launch_fingerprint(spec) else "changed"


def needs_launch_approval(spec: ServerSpec) -> bool:
    """Only repository-authored servers pass through G1; the user's own start without asking."""
    return spec.provenance.tier == "workspace"
