"""Cached results by the server's hints (2026-07-28 caching). Load-bearing direction: an answer is
never served after its TTL, nor to other credentials when it is "private", nor for a request that
carries input answers; the second corpus: within its TTL it is served without asking again."""

from __future__ import annotations

from levelcode.mcp.protocol.result_cache import ResultCache, cache_hint, cache_key


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(credentials: list[str] | None = None) -> tuple[ResultCache, Clock]:
    clock = Clock()
    who = credentials or ["alice"]
    return ResultCache(lambda: who[0], clock), clock


def test_served_within_its_ttl_and_never_after() -> None:
    cache, clock = make()
    key = cache_key("tools/list", {})
    assert key is not None
    cache.put(key, {"tools": [], "ttlMs": 1500, "cacheScope": "public"})
    clock.now += 1.499
    assert cache.get(key) == {"tools": [], "ttlMs": 1500, "cacheScope": "public"}
    clock.now += 0.001
    assert cache.get(key) is None


def test_no_ttl_zero_or_negative_is_not_kept() -> None:
    cache, _clock = make()
    for result in ({"tools": []}, {"tools": [], "ttlMs": 0}, {"tools": [], "ttlMs": -5}, {"ttlMs": "9"}):
        cache.put("tools/list {}", result)
        assert cache.get("tools/list {}") is None


def test_private_answers_stay_with_the_credentials_that_got_them() -> None:
    who = ["token-a"]
    cache, _clock = make(who)
    cache.put("resources/read x", {"contents": [], "ttlMs": 60_000, "cacheScope": "private"})
    cache.put("tools/list {}", {"tools": [], "ttlMs": 60_000, "cacheScope": "public"})
    who[0] = "token-b"
    assert cache.get("resources/read x") is None
    assert cache.get("tools/list {}") is not None
    assert cache_hint({"ttlMs": 5}).private  # no scope: assume it is the caller's own


def test_the_key_is_method_and_what_shapes_the_answer_and_input_answers_are_never_cached() -> None:
    assert cache_key("resources/read", {"uri": "a", "_meta": {"x": 1}}) == 'resources/read {"uri": "a"}'
    assert cache_key("tools/list", {"cursor": "2"}) != cache_key("tools/list", {})
    assert cache_key("tools/call", {"name": "x"}) is None
    assert cache_key("resources/read", {"uri": "a", "inputResponses": {}}) is None
    assert cache_key("resources/read", {"uri": "a", "requestState": "s"}) is None


def test_a_change_notification_drops_every_page_and_staleness_follows_the_hint() -> None:
    cache, clock = make()
    cache.put("tools/list {}", {"tools": [], "ttlMs": 60_000, "cacheScope": "public"})
    cache.put('tools/list {"cursor": "2"}', {"tools": [], "ttlMs": 60_000, "cacheScope": "public"})
    cache.put('resources/read {"uri": "a"}', {"contents": [], "ttlMs": 60_000})
    cache.put('resources/read {"uri": "b"}', {"contents": [], "ttlMs": 60_000})
    assert not cache.stale("tools/list")
    cache.drop("tools/list")
    cache.drop("resources/read", "a")
    assert cache.stale("tools/list")
    assert cache.get('tools/list {"cursor": "2"}') is None
    assert cache.get('resources/read {"uri": "a"}') is None
    assert cache.get('resources/read {"uri": "b"}') is not None
    assert not cache.stale("prompts/list")  # no hint ever came: the holder's own rule applies
    clock.now += 61
    assert cache.get('resources/read {"uri": "b"}') is None
