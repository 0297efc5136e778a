"""The `"timeouts"` key of a server entry: parsed into limits, bad values reported (never fatal)."""

from __future__ import annotations

from levelcode.mcp.config.server_entry import parse_server_map
from levelcode.mcp.config.specs import Provenance
from levelcode.mcp.config.timeouts_entry import CallTimeouts, effective_limits

BAD = "must be a positive number of seconds; got {}, using the default"


def parse(entry: dict[str, object]) -> tuple[object, list[str]]:
    servers, problems = parse_server_map(
        {"s": {"command": "x", **entry}}, provenance=Provenance("user", "/u.json"), key="mcpServers"
    )
    return servers[0].timeouts, [f"{p.key}: {p.message}" for p in problems]


def test_both_limits_are_read() -> None:
    assert parse({"timeouts": {"idleSeconds": 60, "maxSeconds": 1800}}) == (CallTimeouts(60.0, 1800.0), [])


def test_bad_values_are_reported_and_the_defaults_used() -> None:
    timeouts, problems = parse({"timeouts": {"idleSeconds": -1, "maxSeconds": "long", "other": 1}})
    assert timeouts == CallTimeouts(None, None)
    assert problems == [
        "mcpServers.s.timeouts.other: unknown key, ignored",
        "mcpServers.s.timeouts.idleSeconds: " + BAD.format("-1"),
        "mcpServers.s.timeouts.maxSeconds: " + BAD.format("'long'"),
    ]


def test_a_cap_below_the_idle_limit_is_raised_to_it() -> None:
    timeouts, problems = parse({"timeouts": {"idleSeconds": 60, "maxSeconds": 10}})
    assert timeouts == CallTimeouts(60.0, 60.0)
    assert problems == [
        "mcpServers.s.timeouts.maxSeconds: is shorter than idleSeconds (10 < 60); using 60 for both"
    ]


def test_not_an_object_is_reported() -> None:
    timeouts, problems = parse({"timeouts": 5})
    assert timeouts is None
    assert problems[0].startswith("mcpServers.s.timeouts: expected an object")


def test_effective_limits_fall_back_to_the_entrys_timeout_then_the_default() -> None:
    assert effective_limits(None, None, 120.0) == (120.0, 1800.0)
    assert effective_limits(None, 45.0, 120.0) == (45.0, 1800.0)
    assert effective_limits(CallTimeouts(idle_seconds=10.0), 45.0, 120.0) == (10.0, 1800.0)
    assert effective_limits(CallTimeouts(max_seconds=60.0), None, 120.0) == (120.0, 120.0)
    assert effective_limits(None, 3600.0, 120.0) == (3600.0, 3600.0)
