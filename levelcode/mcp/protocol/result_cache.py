"""Results a server lets us reuse (2026-07-28 caching): `ttlMs` says how long a result stays
fresh, `cacheScope` who may share it ("public": anyone; "private": the same credentials only).

Pure: the clock and the credentials' identity are passed in. A result is kept only when its
`ttlMs` is positive, and served only while fresh — never after. The key is the method and the
parameters that shape the answer (a page's `cursor`, a resource's `uri`); a request that carries
input answers (`inputResponses`, `requestState`) is never cached. A notification that the list
changed (or the resource was updated) drops what it concerns at once.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

PURE = True

CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
_KEY_PARAMS = ("cursor", "uri")
_NOT_CACHED_WITH = ("inputResponses", "requestState")
MAX_ENTRIES = 500


@dataclass(frozen=True)
class CacheHint:
    ttl_ms: int | None  # None: the server gave none (then freshness is the caller's own heuristic)
    private: bool = True  # without a scope, assume the answer is the caller's own


def cache_hint(result: Mapping[str, object]) -> CacheHint:
    ttl = result.get("ttlMs")
    private = result.get("cacheScope") != "public"
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
        return CacheHint(None, private)
    return CacheHint(max(0, int(ttl)), private)  # a negative TTL counts as 0 (the spec says so)


def cache_key(method: str, params: Mapping[str, object] | None) -> str | None:
    """What identifies the answer, or None when this request must not be cached."""
    given = params or {}
    if method not in CACHEABLE or any(k in given for k in _NOT_CACHED_WITH):
        return None
    shaping = {k: given[k] for k in _KEY_PARAMS if k in given}
    return f"{method} {json.dumps(shaping, sort_keys=True, default=str)}"


@dataclass(frozen=True)
class _Entry:
    result: Mapping[str, object]
    fresh_until: float
    credentials: str | None  # None: public


class ResultCache:
    def __init__(self, credentials: Callable[[], str], clock: Callable[[], float] = time.monotonic) -> None:
        self.credentials = credentials  # an identity of what the requests carry (never the secret itself)
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self.hinted: set[str] = set()  # methods whose answers came with a TTL: freshness is theirs

    def get(self, key: str) -> Mapping[str, object] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self.clock() >= entry.fresh_until or (
            entry.credentials is not None and entry.credentials != self.credentials()
        ):
            del self._entries[key]
            return None
        return entry.result

    def put(self, key: str, result: Mapping[str, object]) -> float | None:
        """Keep `result` while its hint allows; the time it stays fresh until, or None (not kept)."""
        hint = cache_hint(result)
        if hint.ttl_ms is not None:
            self.hinted.add(key.partition(" ")[0])
        if not hint.ttl_ms:
            self._entries.pop(key, None)
            return None
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.pop(next(iter(self._entries)))
        fresh_until = self.clock() + hint.ttl_ms / 1000
        self._entries[key] = _Entry(result, fresh_until, self.credentials() if hint.private else None)
        return fresh_until

    def stale(self, method: str) -> bool:
        """Whether a list the server gave a TTL for must be fetched again (expired or dropped);
        False for a list without a hint: then the holder keeps it until the server says it changed."""
        key = cache_key(method, {})
        return method in self.hinted and key is not None and self.get(key) is None

    def drop(self, method: str, uri: str | None = None) -> None:
        """Forget every answer to `method` (every page), or to one `uri` of it."""
        prefix = f"{method} " if uri is None else cache_key(method, {"uri": uri})
        for key in [k for k in self._entries if prefix is not None and k.startswith(prefix)]:
            del self._entries[key]
