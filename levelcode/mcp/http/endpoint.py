"""What a remote connection needs, resolved from a server's config at connect time: its URL (the
`${VAR}` config loading left in it because they look like secrets filled in), its headers with
`${VAR}` expanded from the user's environment, its mode, its limits.

Pure apart from reading the given environment mapping. Header values are secrets: they are never
put in an error message (a bad one is named by its key only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.environment import NOTHING_WITHHELD, Withheld, expand_references
from levelcode.mcp.config.specs import HttpServerSpec

Mode = Literal["auto", "sse"]
_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


@dataclass(frozen=True)
class RemoteEndpoint:
    server: str
    url: str
    headers: Mapping[str, str] = field(repr=False)  # expanded: may hold credentials
    mode: Mode
    max_message_bytes: int
    connect_timeout: float


def remote_endpoint(
    spec: HttpServerSpec,
    parent_env: Mapping[str, str],
    *,
    max_message_bytes: int,
    connect_timeout: float,
    withheld: Withheld = NOTHING_WITHHELD,
) -> RemoteEndpoint:
    """`withheld`: what a repository's server must not receive (LevelCode's provider keys)."""
    file = spec.provenance.file
    headers = {
        key: expand_references(
            value, parent_env, server=spec.name, key=key, field="header", withheld=withheld, file=file
        )
        for key, value in spec.headers
    }
    for key, value in headers.items():
        _check_header(spec.name, key, value)
    url = expand_references(
        spec.url, parent_env, server=spec.name, key="", field="url", withheld=withheld, file=file
    )
    if not url.lower().startswith(("http://", "https://")):
        raise ServerStartError("url is not an http:// or https:// URL once filled in", server=spec.name)
    return RemoteEndpoint(
        server=spec.name,
        url=url,
        headers=headers,
        mode="sse" if spec.legacy_sse else "auto",
        max_message_bytes=max_message_bytes,
        connect_timeout=connect_timeout,
    )


def _check_header(server: str, key: str, value: str) -> None:
    if not key or not set(key) <= _TOKEN:
        raise ServerStartError(f"header name {key[:60]!r} is not a valid HTTP header name", server=server)
    if any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F for c in value):
        raise ServerStartError(f"header {key} holds a line break or control character", server=server)
    if not value.isascii():
        raise ServerStartError(f"header {key} holds characters an HTTP header cannot carry", server=server)
