"""Pure URL facts for remote servers: same origin, plaintext to a remote host, and a URL fit to show.

Pure: parses strings, never connects. Credentials follow a request only within its origin, so the
origin test here decides where configured headers may go.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import SplitResult, urljoin, urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) with the scheme's default port filled in; None for a non-HTTP URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port or _DEFAULT_PORTS[scheme]
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


def is_loopback_host(host: str) -> bool:
    name = host.strip("[]").lower()
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_plaintext_remote(url: str) -> bool:
    """True for `http://` to anything but this machine: what is sent can be read on the way."""
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and not is_loopback_host(parts.hostname or "")


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
