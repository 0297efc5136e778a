"""A server's `WWW-Authenticate` header, parsed (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1,
RFC 9449 §7.1).

Pure. Only the Bearer and DPoP challenges' parameters are kept (Bearer's first where both stand);
anything malformed is ignored rather than guessed at, since the header comes from the server and
is untrusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PURE = True

_PARAM = re.compile(r'\s*([A-Za-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')
_MAX_HEADER = 8192


@dataclass(frozen=True)
class BearerChallenge:
    resource_metadata: str | None = None
    scope: tuple[str, ...] | None = None  # None: the challenge names no scope
    error: str | None = None
    error_description: str | None = None
    dpop: bool = False  # the server challenged with the DPoP scheme: it takes DPoP-bound tokens
    token_scheme: bool = False  # a Bearer or DPoP challenge stands in the header at all

    @property
    def insufficient_scope(self) -> bool:
        return self.error == "insufficient_scope"


def parse_challenge(header: str | None) -> BearerChallenge:
    """The Bearer challenge's parameters; an empty challenge when there is none."""
    if not header:
        return BearerChallenge()
    dpop = _scheme_params(header[:_MAX_HEADER], "DPoP")
    bearer = _scheme_params(header[:_MAX_HEADER], "Bearer")
    params = {**(dpop or {}), **(bearer or {})}
    scope = params.get("scope")
    return BearerChallenge(
        resource_metadata=params.get("resource_metadata") or None,
        scope=tuple(scope.split()) if scope is not None else None,
        error=params.get("error") or None,
        error_description=params.get("error_description") or None,
        dpop=dpop is not None,
        token_scheme=dpop is not None or bearer is not None,
    )


def _scheme_params(header: str, scheme: str) -> dict[str, str] | None:
    """Parameters of the `scheme` challenge, wherever it stands among others; None without one."""
    match = re.search(rf"(?:^|,)\s*{scheme}(?:\s+|$)", header, re.IGNORECASE)
    if match is None:
        return None
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
