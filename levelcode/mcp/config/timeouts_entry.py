"""A server entry's `"timeouts"` key: how long one call may go without progress, and how long it
may run at all, as plain data.

Pure: takes the parsed JSON value, returns the limits and reports problems; never looks at the
disk. The shape is `{"idleSeconds": 60, "maxSeconds": 1800}`, both optional. A call's idle
deadline moves each time the server reports progress on it (or its task changes); the absolute cap
never moves. A bad value is reported and the default used: the server still loads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

PURE = True

TIMEOUTS_KEY = "timeouts"
IDLE_KEY = "idleSeconds"
MAX_KEY = "maxSeconds"
DEFAULT_MAX_SECONDS = 1800.0

Note = Callable[[str, str], None]  # (sub-key, message): a problem under the entry's `timeouts` key


@dataclass(frozen=True)
class CallTimeouts:
    """As written; None: the default (idle: the entry's `timeout`, else LevelCode's call timeout)."""

    idle_seconds: float | None = None
    max_seconds: float | None = None


def parse_timeouts_entry(raw: object, note: Note) -> CallTimeouts | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        note("", f'expected an object such as {{"{IDLE_KEY}": 60, "{MAX_KEY}": 1800}}; ignored')
        return None
    for unknown in sorted(str(k) for k in raw if k not in (IDLE_KEY, MAX_KEY)):
        note(unknown, "unknown key, ignored")
    idle = positive_seconds(raw.get(IDLE_KEY), IDLE_KEY, note)
    cap = positive_seconds(raw.get(MAX_KEY), MAX_KEY, note)
    if idle is not None and cap is not None and cap < idle:
        note(MAX_KEY, f"is shorter than {IDLE_KEY} ({cap:g} < {idle:g}); using {idle:g} for both")
        cap = idle
    return CallTimeouts(idle, cap)


def positive_seconds(value: object, key: str, note: Note) -> float | None:
    """`value` as seconds, when it is a positive finite number; otherwise None, and a bad one noted."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        note(key, f"must be a positive number of seconds; got {value!r}, using the default")
        return None
    return float(value)


def effective_limits(
    timeouts: CallTimeouts | None, timeout: float | None, default: float
) -> tuple[float, float]:
    """(idle, cap) for a call: `idleSeconds`, else the entry's `timeout`, else `default`; the cap
    `maxSeconds`, else 30 minutes — never shorter than the idle limit."""
    written = timeouts or CallTimeouts()
    idle = written.idle_seconds or timeout or default
    cap = written.max_seconds or max(DEFAULT_MAX_SECONDS, idle)
    return idle, max(cap, idle)
