"""What a server's entry says about the client features it gets: `sampling` (off unless the
user's own entry turns it on), `roots` (on unless turned off), and `logLevel` (the least severe
of the server's log messages that LevelCode keeps in its log file).

Pure. Load-bearing: a repository's entry can never enable sampling — a server driving the user's
model and spending their tokens — so `"sampling": true` in a workspace file is ignored, and said.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

PURE = True

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LOG_LEVEL = "info"
FEATURE_KEYS = frozenset({"sampling", "roots", "logLevel"})

Note = Callable[[str, str], None]  # (key, message): a problem reported against the entry


@dataclass(frozen=True)
class ClientFeatureSettings:
    sampling: bool = False
    roots: bool = True
    log_level: str = DEFAULT_LOG_LEVEL


DEFAULT_CLIENT_FEATURES = ClientFeatureSettings()


def parse_client_features(entry: Mapping[object, object], *, tier: str, note: Note) -> ClientFeatureSettings:
    sampling = _flag(entry, "sampling", False, note)
    if sampling and tier == "workspace":
        note("sampling", "ignored: only your own settings can let a server use your model")
        sampling = False
    level = entry.get("logLevel", DEFAULT_LOG_LEVEL)
    if level not in LOG_LEVELS:
        note("logLevel", f"must be one of {', '.join(LOG_LEVELS)}; got {level!r}, using {DEFAULT_LOG_LEVEL}")
        level = DEFAULT_LOG_LEVEL
    roots = _flag(entry, "roots", True, note)
    return ClientFeatureSettings(sampling=sampling, roots=roots, log_level=str(level))


def _flag(entry: Mapping[object, object], key: str, default: bool, note: Note) -> bool:
    value = entry.get(key, default)
    if not isinstance(value, bool):
        note(key, f"must be true or false; got {value!r}, treating it as {str(default).lower()}")
        return default
    return value


def at_least(level: object, threshold: str) -> bool:
    """Whether a message of `level` is as severe as `threshold` (an unknown level counts as info)."""
    rank = LOG_LEVELS.index(level) if isinstance(level, str) and level in LOG_LEVELS else 1
    return rank >= LOG_LEVELS.index(threshold)
