"""Pure facts about a remote server's URL as written in config: whether it reaches another machine
over plain `http://`, where anything sent (headers, tokens, tool arguments) can be read on the way.

Pure: parses strings, never resolves a name or connects. The launch card (gates) and the HTTP
transport share these, so both call the same URL plaintext.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

PURE = True

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback_host(host: str) -> bool:
    """A name or address that stays on this machine (RFC 6761 keeps `*.localhost` here too)."""
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
