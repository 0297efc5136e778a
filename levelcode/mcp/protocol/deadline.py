"""When a long call gives up: an idle deadline that each sign of life moves (a progress
notification, a task that changed), and an absolute cap that nothing moves.

Pure: the clock is passed in; nothing here sleeps or schedules. The session asks `due_in` when to
look again and `expired` whether the call is over, and why, in words fit for an error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

PURE = True


@dataclass
class CallDeadline:
    idle: float  # seconds without a sign of life
    cap: float  # seconds in all, whatever the server reports
    clock: Callable[[], float] = time.monotonic
    started: float = field(init=False)
    last_sign: float = field(init=False)
    signs: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.started = self.last_sign = self.clock()

    def touch(self) -> None:
        """The server showed the call is moving: the idle deadline starts again from now."""
        self.last_sign = self.clock()
        self.signs += 1

    def due_in(self) -> float:
        """Seconds until the nearer of the two deadlines (never negative)."""
        now = self.clock()
        return max(0.0, min(self.last_sign + self.idle, self.started + self.cap) - now)

    def expired(self) -> str | None:
        """None while the call may go on; else why it may not ("no progress for 60 s")."""
        now = self.clock()
        idle_over = now >= self.last_sign + self.idle
        if idle_over and not self.signs:
            return f"timed out after {self.idle:g} s"
        if now >= self.started + self.cap:
            return f"still running after {self.cap:g} s, the most a call may take"
        if idle_over:
            return f"no progress for {self.idle:g} s"
        return None

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started
