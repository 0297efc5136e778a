"""How far a slow call has come, as a server reports it: pure data, shared by the MCP layer that
receives it, the agent's events that carry it and the surfaces that show it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PURE = True


@dataclass(frozen=True)
class TaskProgress:
    """The call runs as a task on the server: its id and status ("working", "input_required", …)."""

    task_id: str
    status: str


@dataclass(frozen=True)
class Progress:
    progress: float | None  # None: a task's status changed before the server reported any figure
    total: float | None = None
    message: str | None = None  # the server's own words: escape them where printed
    task: TaskProgress | None = None  # set when the call runs as a task (its status changed)

    @property
    def fraction(self) -> float | None:
        if self.progress is None or self.total is None or self.total <= 0:
            return None
        return max(0.0, min(1.0, self.progress / self.total))

    @property
    def complete(self) -> bool:
        return self.progress is not None and self.total is not None and self.progress >= self.total


ProgressCallback = Callable[[Progress], None]


class ReportedProgress:
    """One call's progress on its way to the caller: the server's own reports, and a task's status
    changes, which carry the figures last reported (none yet: None) — a status is no figure."""

    def __init__(self, to: ProgressCallback) -> None:
        self.to = to
        self.last: Progress | None = None

    def report(self, update: Progress) -> None:
        self.last = update
        self.to(update)

    def status(self, task: TaskProgress, message: str | None) -> None:
        done, total = (self.last.progress, self.last.total) if self.last is not None else (None, None)
        self.to(Progress(done, total, message, task))
