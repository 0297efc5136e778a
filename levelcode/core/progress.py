"""How far a slow call has come, as a server reports it: pure data, shared by the MCP layer that
receives it, the agent's events that carry it and the surfaces that show it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TaskProgress:
    """The call runs as a task on the server: its id and status ("working", "input_required", …)."""

    task_id: str
    status: str


@dataclass(frozen=True)
class Progress:
    progress: float
    total: float | None = None
    message: str | None = None  # the server's own words: escape them where printed
    task: TaskProgress | None = None  # set when the call runs as a task (its status changed)

    @property
    def fraction(self) -> float | None:
        if self.total is None or self.total <= 0:
            return None
        return max(0.0, min(1.0, self.progress / self.total))


ProgressCallback = Callable[[Progress], None]
