"""Tasks, as plain data: a `tools/call` answered with a handle to poll instead of its result.

Pure. Two spellings, one type: the tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`;
the server decides, a `resultType: "task"` result carries the task inline, `tasks/get` carries the
final result inline) and the experimental tasks of 2025-11-25 (the client asks with `task` in the
call's params, the answer is `{"task": {…}}`, the result comes from `tasks/result`). Server text
(status messages) is capped here; everything else a server sends is checked before use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

PURE = True

EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = frozenset({"working", "input_required"}) | TERMINAL
MAX_MESSAGE_CHARS = 200
MIN_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 5.0
DEFAULT_POLL_SECONDS = 1.0
Spelling = Literal["extension", "legacy"]


@dataclass(frozen=True)
class TaskState:
    task_id: str
    status: str
    message: str | None = None
    updated: str | None = None  # lastUpdatedAt as the server wrote it: a change is a sign of life
    poll_seconds: float = DEFAULT_POLL_SECONDS
    result: Mapping[str, object] | None = None  # completed (extension spelling)
    error: Mapping[str, object] | None = None  # failed
    input_requests: Mapping[str, object] | None = None  # input_required (extension spelling)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def moved_from(self, before: TaskState) -> bool:
        """Whether anything the server says about the task changed: the task is alive."""
        return (self.status, self.message, self.updated) != (before.status, before.message, before.updated)


def created_task(result: Mapping[str, object], spelling: Spelling) -> TaskState | None:
    """The task a `tools/call` answer created, or None when it is a plain result."""
    if spelling == "extension":
        return parse_task(result, spelling) if result.get("resultType") == "task" else None
    task = result.get("task")
    if isinstance(task, Mapping) and "content" not in result:
        return parse_task(task, spelling)
    return None


def parse_task(raw: Mapping[str, object], spelling: Spelling) -> TaskState | None:
    """A task as `tasks/get` (or a creation answer) spells it; None when it is not one."""
    task_id, status = raw.get("taskId"), raw.get("status")
    if not isinstance(task_id, str) or not task_id or len(task_id) > 500 or status not in STATUSES:
        return None
    message = raw.get("statusMessage")
    updated = raw.get("lastUpdatedAt")
    result, error, inputs = raw.get("result"), raw.get("error"), raw.get("inputRequests")
    return TaskState(
        task_id=task_id,
        status=str(status),
        message=" ".join(message.split())[:MAX_MESSAGE_CHARS] if isinstance(message, str) else None,
        updated=updated[:64] if isinstance(updated, str) else None,
        poll_seconds=poll_seconds(raw.get("pollIntervalMs" if spelling == "extension" else "pollInterval")),
        result=result if isinstance(result, Mapping) else None,
        error=error if isinstance(error, Mapping) else None,
        input_requests=inputs if isinstance(inputs, Mapping) else None,
    )


def poll_seconds(milliseconds: object) -> float:
    """The server's suggested interval, kept between 50 ms and 5 s (a server cannot make us spin
    or go deaf)."""
    if (
        isinstance(milliseconds, bool)
        or not isinstance(milliseconds, int | float)
        or not math.isfinite(milliseconds)
    ):
        return DEFAULT_POLL_SECONDS
    return min(MAX_POLL_SECONDS, max(MIN_POLL_SECONDS, milliseconds / 1000))


def error_text(error: Mapping[str, object] | None) -> str:
    """A failed task's JSON-RPC error, as one line."""
    if error is None:
        return "the task failed without saying why"
    message = error.get("message")
    code = error.get("code")
    said = message[:300] if isinstance(message, str) and message else "no message"
    return f"{said} (code {code})" if isinstance(code, int) else said


def task_spelling(era: str, task_calls: bool, tool: Mapping[str, object] | None) -> Spelling | None:
    """How a call to `tool` may become a task: the extension (2026-07-28: the server decides, every
    request declares it), a 2025-11-25 task for a tool that supports one, or not at all."""
    if era == "modern":
        return "extension"
    if task_calls and legacy_task_support(tool) != "forbidden":
        return "legacy"
    return None


def legacy_task_support(tool: Mapping[str, object] | None) -> str:
    """A 2025-11-25 tool's `execution.taskSupport`: "required", "optional" or "forbidden"."""
    execution = tool.get("execution") if tool is not None else None
    support = execution.get("taskSupport") if isinstance(execution, Mapping) else None
    return support if support in ("required", "optional") else "forbidden"
