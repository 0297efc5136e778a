"""Watching a long-running confined process (a background command, a sandboxed MCP server) for git
control entries it plants, while it runs and once more when it has ended.

Why a watcher and not only the check at the end: such a process lives for the whole session, and
a repository it plants would be live all that time — an editor discovers nested repositories by
itself and runs git in them. The check repeats every few seconds, spaced further when one check
is slow (a big workspace), so it costs a small share of one core. It narrows the window to those
seconds; it does not close it (a mount cannot forbid creating a name, see git_guard.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from levelcode.sandbox.confinement import planted_git_control
from levelcode.sandbox.policy import SandboxPolicy

WATCH_SECONDS = 2.0
MAX_CHECK_SHARE = 0.05  # the checks take at most this share of the time between them


async def watch_planted(
    policy: SandboxPolicy,
    ended: Callable[[float], Awaitable[bool]],
    report: Callable[[list[str]], None],
) -> None:
    """Until `ended(seconds)` (waits up to that long; True once the process has ended) says so,
    move away what the process planted, `report`ing each check's lines; a last check after."""
    period = WATCH_SECONDS
    while True:
        finished = await ended(period)
        started = time.monotonic()
        try:
            lines = await asyncio.to_thread(planted_git_control, policy)
        except OSError as exc:
            lines = [f"[sandbox] could not check for planted git control files: {exc}"]
        if lines:
            report(lines)
        if finished:
            return
        period = max(WATCH_SECONDS, (time.monotonic() - started) / MAX_CHECK_SHARE)
