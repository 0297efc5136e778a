"""Background commands: start one, read what it printed since the last look, stop it.

Jobs live in the session's `ToolContext.state`; `close_background_jobs` stops every job's whole
process group, so a new chat or exit leaves nothing running. A confined job is watched while it
runs, and checked once more when it ends, for git control entries it planted in the workspace
(sandbox/git_watch.py): what it planted is moved away, and its output and the user are told.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from levelcode.core.errors import ToolError
from levelcode.sandbox.diagnosis import sandbox_refusals
from levelcode.sandbox.git_watch import watch_planted
from levelcode.sandbox.policy import SandboxPolicy
from levelcode.tools.arguments import optional_int, required_str
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from levelcode.tools.command_approval import background_command_approval
from levelcode.tools.command_sandbox import command_confinement, tell_user
from levelcode.tools.process_group import ShellProcess, exit_description

JOBS_KEY = "background_jobs"
MAX_JOBS = 16
UNREAD_LIMIT = 200_000  # bytes of unread output kept per job; older unread output is dropped
TAIL_LIMIT = 16_000  # bytes of the latest output kept, read or not, to tell what the sandbox blocked
MAX_WAIT_SECONDS = 60
LAST_CHECK_SECONDS = 30.0  # the workspace scan after a job ends is bounded in entries, not time


@dataclass
class JobOutput:
    """What a job printed that nobody has read yet; `changed` is set on new output and on exit."""

    unread: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    tail: bytearray = field(default_factory=bytearray)

    def add(self, chunk: bytes) -> None:
        self.tail += chunk
        del self.tail[: max(0, len(self.tail) - TAIL_LIMIT)]
        self.unread += chunk
        if len(self.unread) > UNREAD_LIMIT:
            excess = len(self.unread) - UNREAD_LIMIT
            del self.unread[:excess]
            self.dropped += excess
        self.changed.set()

    def take(self) -> str:
        text = self.unread.decode("utf-8", errors="replace")
        if self.dropped:
            text = f"[... {self.dropped} bytes of earlier output were dropped unread ...]\n{text}"
        self.unread.clear()
        self.dropped = 0
        self.changed.clear()
        return text


@dataclass
class BackgroundJob:
    id: str
    command: str
    process: ShellProcess
    output: JobOutput
    policy: SandboxPolicy | None = None  # the sandbox it runs in; None: unconfined
    refusals_told: bool = False
    git_watch: asyncio.Task[None] | None = None  # confined: moves away what it plants in git

    async def watched(self) -> None:
        """Once the job has ended: wait for the last check of what it planted (bounded)."""
        if self.git_watch is not None and not self.running:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.git_watch), LAST_CHECK_SECONDS)

    @property
    def running(self) -> bool:
        return self.process.returncode is None

    def untold_refusals(self) -> list[str]:
        """Once the job has exited by itself: what the sandbox blocked, told only once."""
        if self.running or self.policy is None or self.refusals_told:
            return []
        self.refusals_told = True
        text = self.output.tail.decode("utf-8", errors="replace")
        return list(sandbox_refusals(text, self.process.returncode, self.policy))

    @property
    def status(self) -> str:
        code = self.process.returncode
        return f"running (pid {self.process.pid})" if code is None else f"exited ({exit_description(code)})"


class JobTable:
    """A session's background jobs by id."""

    def __init__(self) -> None:
        self.jobs: dict[str, BackgroundJob] = {}
        self._ids = itertools.count(1)

    def next_id(self) -> str:
        return f"bg{next(self._ids)}"


def job_table(ctx: ToolContext) -> JobTable:
    table = ctx.state.get(JOBS_KEY)
    if not isinstance(table, JobTable):
        table = JobTable()
        ctx.state[JOBS_KEY] = table
    return table


def _job(ctx: ToolContext, args: Args) -> BackgroundJob:
    job_id = required_str(args, "job_id")
    job = job_table(ctx).jobs.get(job_id)
    if job is None:
        known = ", ".join(job_table(ctx).jobs) or "none"
        raise ToolError(f"no background job {job_id!r} (jobs: {known})")
    return job


async def start_background_command(ctx: ToolContext, args: Args) -> str:
    command = required_str(args, "command")
    table = job_table(ctx)
    running = [job for job in table.jobs.values() if job.running]
    if len(running) >= MAX_JOBS:
        raise ToolError(f"{len(running)} background jobs are running; stop one first")
    output = JobOutput()
    confined = command_confinement(ctx)
    wrap = confined[1] if confined else None
    process = await ShellProcess.start(command, ctx.workspace, output.add, output.changed.set, wrap=wrap)
    job = BackgroundJob(table.next_id(), command, process, output, confined[0] if confined else None)
    if job.policy is not None:
        job.git_watch = asyncio.create_task(watch_planted(job.policy, process.wait, _reporter(ctx, job)))
    table.jobs[job.id] = job
    return (
        f"Started background job {job.id} (pid {process.pid}). Read its output with "
        f"read_background_output and stop it with stop_background_command (job_id {job.id!r})."
    )


def _reporter(ctx: ToolContext, job: BackgroundJob) -> Callable[[list[str]], None]:
    def report(lines: list[str]) -> None:
        job.output.add(("\n".join(lines) + "\n").encode())
        tell_user(ctx, [f"[background job {job.id}]", *lines])

    return report


async def read_background_output(ctx: ToolContext, args: Args) -> str:
    job = _job(ctx, args)
    wait = optional_int(args, "wait_seconds", 0, minimum=0, maximum=MAX_WAIT_SECONDS)
    if wait and not job.output.unread and job.running:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(job.output.changed.wait(), wait)
    await job.watched()
    output = job.output.take().rstrip("\n") or "(no new output)"
    return "\n".join([f"[job {job.id}: {job.status}]", output, *job.untold_refusals()])


async def stop_background_command(ctx: ToolContext, args: Args) -> str:
    job = _job(ctx, args)
    del job_table(ctx).jobs[job.id]
    await job.process.stop()
    await job.watched()
    output = job.output.take().rstrip("\n") or "(no new output)"
    return f"[job {job.id} stopped: {job.status}]\n{output}"


async def close_background_jobs(ctx: ToolContext) -> None:
    """Stop every job of the session, all at once; one failing stop does not spare the others."""
    table = job_table(ctx)
    jobs = list(table.jobs.values())
    table.jobs.clear()
    await asyncio.gather(*(job.process.stop() for job in jobs), return_exceptions=True)
    await asyncio.gather(*(job.watched() for job in jobs), return_exceptions=True)


_JOB_ID = {"type": "string", "description": "The id start_background_command returned, e.g. 'bg1'"}

START_BACKGROUND_COMMAND = BuiltinTool(
    name="start_background_command",
    description=(
        "Start a long-running shell command (a server, a watcher) with bash in the workspace and "
        "return at once with a job id. It keeps running until stopped or until the session ends."
    ),
    input_schema={
        "type": "object",
        "properties": {"command": {"type": "string", "description": "A bash command line"}},
        "required": ["command"],
    },
    run=start_background_command,
    approval=background_command_approval,
)

READ_BACKGROUND_OUTPUT = BuiltinTool(
    name="read_background_output",
    description=(
        "Return what a background job printed since the last read, and whether it is still running "
        "(or its exit code). wait_seconds waits up to that long for new output or exit."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "job_id": _JOB_ID,
            "wait_seconds": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT_SECONDS, "default": 0},
        },
        "required": ["job_id"],
    },
    run=read_background_output,
)

STOP_BACKGROUND_COMMAND = BuiltinTool(
    name="stop_background_command",
    description="Stop a background job and everything it started; returns its last output.",
    input_schema={"type": "object", "properties": {"job_id": _JOB_ID}, "required": ["job_id"]},
    run=stop_background_command,
)
