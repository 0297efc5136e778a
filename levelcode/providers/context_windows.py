"""How many tokens a model's context window holds: what deferral and compaction measure against.

Pure. The user's `contextWindow` setting wins (a local model served with a small context, a model
this table does not know); otherwise the window of the model family, or a conservative default.
The figures are the providers' published windows; a larger one a model may be run with (a beta
long-context mode) is opted into with `contextWindow`.
"""

from __future__ import annotations

from collections.abc import Mapping

PURE = True

DEFAULT_CONTEXT_WINDOW = 128_000
# model-name prefix → window; the longest matching prefix wins
KNOWN_WINDOWS: Mapping[str, int] = {
    "claude-": 200_000,
    "anthropic/claude-": 200_000,  # OpenRouter's names
    "gpt-5": 400_000,
    "gpt-4.1": 1_000_000,
    "gpt-4o": 128_000,
    "o3": 200_000,
    "o4": 200_000,
}


def context_window(model: str, configured: int | None) -> int:
    known = known_context_window(model, configured)
    return known if known is not None else DEFAULT_CONTEXT_WINDOW


def known_context_window(model: str, configured: int | None) -> int | None:
    """The user's `contextWindow` (`configured`, as Settings parsed it), else the model family's;
    None when neither says (the default is then a guess, and `/context` says so)."""
    if configured is not None:
        return configured
    matches = [prefix for prefix in KNOWN_WINDOWS if model.startswith(prefix)]
    return KNOWN_WINDOWS[max(matches, key=len)] if matches else None
