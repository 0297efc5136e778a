"""Following a task to its end: poll at the server's pace, answer what it asks, fetch its result,
and cancel it when the caller gives up — every wait bounded by the call's deadline.

The caller (the connection) gets one result for the call, as if the server had answered it
directly, or an exception: RemoteError (the task failed), TaskCancelled (the server cancelled
it), CallTimeout (the deadline passed: `tasks/cancel` has been sent), TransportError (the
connection ended). A poll that fails while the connection lives on — a remote server restarting,
an HTTP session renewed — is tried again at the next interval: the task is the server's, and its
id is all a client needs to find it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Mapping

from levelcode.core.errors import CallTimeout, McpError, ProtocolError, RemoteError, TransportError
from levelcode.core.progress import ReportedProgress, TaskProgress
from levelcode.mcp.protocol.deadline import CallDeadline
from levelcode.mcp.protocol.input_rounds import fulfil
from levelcode.mcp.protocol.session import McpSession
from levelcode.mcp.protocol.tasks import Spelling, TaskState, error_text, parse_task

CANCEL_SECONDS = 5.0
MAX_INPUT_ROUNDS = 20
UNREACHABLE = "cannot reach the server; asking again"
StatusCallback = Callable[[TaskState], None]


class TaskCancelled(McpError):
    """The server reports the task cancelled (not by this call's own request)."""


async def follow_task(
    session: McpSession,
    task: TaskState,
    *,
    spelling: Spelling,
    deadline: CallDeadline,
    tool: str | None = None,
    on_status: StatusCallback | None = None,
) -> Mapping[str, object]:
    follower = _Follower(session, spelling, deadline, tool, on_status or (lambda _task: None))
    try:
        return await follower.run(task)
    except (asyncio.CancelledError, CallTimeout):
        cancel_in_background(session, follower.task_id)
        raise


class _Follower:
    def __init__(
        self,
        session: McpSession,
        spelling: Spelling,
        deadline: CallDeadline,
        tool: str | None,
        on_status: StatusCallback,
    ) -> None:
        self.session, self.spelling, self.deadline, self.tool = session, spelling, deadline, tool
        self.on_status = on_status
        self.task_id = ""
        self.answered: set[str] = set()
        self.rounds = 0
        self.unreachable = False

    async def run(self, task: TaskState) -> Mapping[str, object]:
        self.task_id = task.task_id
        self.on_status(task)
        while True:
            if task.status == "completed":
                return await self._completed(task)
            if task.status == "failed":
                return await self._failed(task)
            if task.status == "cancelled":
                raise TaskCancelled(
                    f"the server cancelled task {task.task_id}"
                    + (f": {task.message}" if task.message else ""),
                    server=self.session.server,
                    tool=self.tool,
                )
            if task.status == "input_required":
                if self.spelling == "legacy":  # its requests arrive on the tasks/result stream
                    return await self._request("tasks/result")
                await self._answer(task)
            task = await self._next(task)

    async def _completed(self, task: TaskState) -> Mapping[str, object]:
        if self.spelling == "legacy":
            return await self._request("tasks/result")
        if task.result is None:
            raise ProtocolError(f"task {task.task_id} completed without a result", server=self.session.server)
        return task.result

    async def _failed(self, task: TaskState) -> Mapping[str, object]:
        if self.spelling == "legacy":  # tasks/result answers with the error the call would have had
            return await self._request("tasks/result")
        code = task.error.get("code") if task.error is not None else None
        raise RemoteError(
            error_text(task.error), server=self.session.server, code=code if isinstance(code, int) else -32603
        )

    async def _answer(self, task: TaskState) -> None:
        """The input the task waits for, each request once (a poll repeats what is outstanding)."""
        fresh = {k: v for k, v in (task.input_requests or {}).items() if k not in self.answered}
        if not fresh:
            return
        self.rounds += 1
        if self.rounds > MAX_INPUT_ROUNDS:
            raise ProtocolError(f"task {task.task_id} kept asking for input", server=self.session.server)
        answers = await fulfil(self.session, fresh, self.tool)
        self.answered.update(fresh)
        self.deadline.touch()  # the user's time is not the server's
        await self._request("tasks/update", {"inputResponses": answers})

    async def _next(self, task: TaskState) -> TaskState:
        """The task after one interval: polled again, or as it was when the poll failed but the
        connection lives on (tried again next time, until the deadline)."""
        await self._pause(task.poll_seconds)
        try:
            raw = await self._request("tasks/get")
        except TransportError:
            if self.session.closed is not None:
                raise
            if not self.unreachable:  # said once per outage, on the activity line
                self.unreachable = True
                self.on_status(dataclasses.replace(task, message=UNREACHABLE))
            return task
        self.unreachable = False
        polled = parse_task(raw, self.spelling)
        if polled is None or polled.task_id != task.task_id:
            raise ProtocolError(f"tasks/get answered without task {task.task_id}", server=self.session.server)
        if polled.moved_from(task):
            self.deadline.touch()
            self.on_status(polled)
        return polled

    async def _pause(self, seconds: float) -> None:
        reason = self.deadline.expired()
        if reason is None:
            await asyncio.sleep(min(seconds, self.deadline.due_in()))
            reason = self.deadline.expired()
        if reason is not None:
            what = f"tool {self.tool!r}" if self.tool else "the task"
            raise CallTimeout(f"{what} {reason}", server=self.session.server, seconds=self.deadline.elapsed)

    async def _request(self, method: str, extra: Mapping[str, object] | None = None) -> Mapping[str, object]:
        params = {"taskId": self.task_id, **(extra or {})}
        return await self.session.request(
            method, params, timeout=None, tool=self.tool, deadline=self.deadline
        )


def status_as_progress(reported: ReportedProgress | None) -> StatusCallback:
    """A task's status changes, as progress for the caller (a live line, `--json` events), with
    the figures the server last reported on the call."""

    def status(state: TaskState) -> None:
        if reported is not None:
            reported.status(TaskProgress(state.task_id, state.status), state.message)

    return status


def cancel_in_background(session: McpSession, task_id: str) -> None:
    """`tasks/cancel`, sent without waiting (bounded): the caller is already on its way out."""
    if not task_id or session.closed is not None:
        return

    async def cancel() -> None:
        with contextlib.suppress(McpError):
            await session.request("tasks/cancel", {"taskId": task_id}, timeout=CANCEL_SECONDS)

    session.spawn(cancel())
