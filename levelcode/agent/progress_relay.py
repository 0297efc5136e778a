"""A running call's progress → `ToolProgress` events, at most every `interval` seconds per call
(a server may report thousands of steps; the last, complete one always goes through, and so does
every change of a task's status: there are few, and the last says how it ended)."""

from __future__ import annotations

import time
from collections.abc import Callable

from levelcode.agent.events import EventSink, ToolProgress
from levelcode.core.messages import ToolUse
from levelcode.core.progress import Progress

DEFAULT_INTERVAL = 0.1


def progress_relay(
    sink: EventSink, interval: float = DEFAULT_INTERVAL, clock: Callable[[], float] = time.monotonic
) -> Callable[[ToolUse, Progress], None]:
    last: dict[str, float] = {}

    def relay(use: ToolUse, update: Progress) -> None:
        now = clock()
        passes = update.complete or update.task is not None
        if not passes and use.id in last and now - last[use.id] < interval:
            return
        last[use.id] = now
        sink.emit(ToolProgress(use.id, use.name, update))

    return relay
