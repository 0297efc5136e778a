"""A server's `WWW-Authenticate` header, parsed (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).

Pure. Only the Bearer challenge's parameters are kept; anything malformed is ignored rather than
guessed at, since the header comes from the server and is untrusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARAM = re.compile(r'\s*([A-Za-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')
_MAX_HEADER = 8192


@dataclass(frozen=True)
class BearerChallenge:
    resource_metadata: str | None = None
    scope: tuple[str, ...] | None = None  # None: the challenge names no scope
    error: str | None = None
    error_description: str | None = None

    @property
    def insufficient_scope(self) -> bool:
        return self.error == "insufficient_scope"


def parse_challenge(header: str | None) -> BearerChallenge:
    """The Bearer challenge's parameters; an empty challenge when there is none."""
    if not header:
        return BearerChallenge()
    params = _bearer_params(header[:_MAX_HEADER])
    scope = params.get("scope")
    return BearerChallenge(
        resource_metadata=params.get("resource_metadata") or None,
        scope=tuple(scope.split()) if scope is not None else None,
        error=params.get("error") or None,
        error_description=params.get("error_description") or None,
    )


def _bearer_params(header: str) -> dict[str, str]:
    """Parameters of the `Bearer` challenge, wherever it stands among others."""
    match = re.search(r"(?:^|,)\s*Bearer(?:\s+|$)", header, re.IGNORECASE)
    if match is None:
        return {}
    params: dict[str, str] = {}
    rest = header[match.end() :]
    while rest:
        found = _PARAM.match(rest)
        if found is None:
            break  # the next challenge's scheme (a token without `=`), or garbage: stop here
        key, value = found.group(1).lower(), found.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        params.setdefault(key, value)
        rest = rest[found.end() :]
    return params
