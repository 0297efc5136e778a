"""Pure URL facts for remote servers: same origin, plaintext to a remote host, and a URL fit to show.

Pure: parses strings, never connects. Credentials follow a request only within its origin, so the
origin test here decides where configured headers may go.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urljoin, urlsplit

from levelcode.mcp.config.remote_urls import is_loopback_host, is_plaintext_remote
from levelcode.policy.network_hosts import default_port

PURE = True

__all__ = [
    "is_loopback_host",
    "is_plaintext_remote",
    "origin_of",
    "resolve_within_origin",
    "same_origin",
    "shown_url",
]


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) with the scheme's default port filled in; None for a non-HTTP URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    default = default_port(scheme)
    if default is None or not parts.hostname:
        return None
    try:
        port = parts.port or default
    except ValueError:
        return None
    return scheme, parts.hostname.lower(), port


def same_origin(first: str, second: str) -> bool:
    origin = origin_of(first)
    return origin is not None and origin == origin_of(second)


def resolve_within_origin(base: str, reference: str) -> str | None:
    """`reference` resolved against `base`, or None when it leaves base's origin."""
    target = urljoin(base, reference)
    return target if same_origin(base, target) else None


def shown_url(url: str) -> str:
    """The URL without user info, query or fragment, which may carry secrets: fit for errors and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if _explicit_port(parts) else host
    return SplitResult(parts.scheme, netloc, parts.path, "", "").geturl()


def _explicit_port(parts: SplitResult) -> bool:
    try:
        return parts.port is not None
    except ValueError:
        return False
