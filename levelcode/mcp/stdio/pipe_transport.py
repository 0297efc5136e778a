"""Our stdio transport: a server as a subprocess speaking newline-delimited JSON-RPC.

Owns one server's process from the moment it is opened: the one it was handed (spawned early) or
one it spawns (spawn.py, the only way). It reads stdout line by line under a hard per-message
cap, keeps stderr in a bounded record and a log file, watches the process itself (not only
end-of-file: a grandchild may hold stdout open after the server died) and ends the whole group on
close: stdin closed, a short grace, then the group signalled. A server that goes is reported one
way, whichever sign of it comes first — its stdin closed, its stdout at its end, its exit: the
exit (code or signal) and the stderr lines that say why (exit_lines.py), once the exit is known.
A sandboxed server that may write folders is watched for git control entries it plants there
(sandbox/git_watch.py); what was moved away is said in its stderr lines and log.

Never decides what may start or how (the launch is given, resolved), never spawns any other way,
and never imports the MCP SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import IO

from levelcode.core.errors import ServerExited, ServerStartError, TransportError
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.transport import MessageSink
from levelcode.mcp.stdio.exit_lines import why_it_ended
from levelcode.mcp.stdio.framing import LineSplitter, Oversized, StderrRing
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.mcp.stdio.process import ServerProcess
from levelcode.mcp.stdio.reaper import WATCHDOG
from levelcode.mcp.stdio.spawn import end_unused, spawn_server
from levelcode.platform.private_files import append_private, private_folder
from levelcode.platform.process_groups import describe_exit, terminate_group, wait_group_gone
from levelcode.platform.subprocess_pipes import ChildProcess, PipesProtocol

# After its stdin is closed, how long a server may take to exit by itself before its group is
# sent SIGTERM (then SIGKILL 1.5 s later). Measured (bench/stdin_close_bench.py, after a session):
# the servers that exit on their own do so within tens of milliseconds (server-memory and
# server-filesystem 20-35 ms, the echo server under 15 ms; 30-50 ms with a load average of 10-15
# on 2 cores, the slowest of 10 at 90 ms), the others only long after this (server-everything
# keeps timers for ~370 ms; the Python SDK's and FastMCP's servers take 0.3-1 s, seconds under
# load, while their interpreter shuts down). A server still there is idling, not finishing, and
# SIGTERM still lets one that handles it finish cleanly.
STDIN_CLOSE_GRACE_SECONDS = 0.1
LAST_GIT_CHECK_SECONDS = 30.0  # the scan after a sandboxed server ends is bounded in entries
EXIT_STDERR_WAIT_SECONDS = 0.1  # after the process ends, how long to wait for its last stderr bytes
# once its stdin or stdout closed, how long to wait for the exit, so that the exit is what is said
EXIT_WAIT_SECONDS = 0.5
MAX_LOG_BYTES = 2 * 1024 * 1024


class StdioTransport:
    def __init__(self, launch: StdioLaunch, process: subprocess.Popen[bytes] | None = None) -> None:
        """`process`: the server spawned for this very launch already (the early start's), which
        the transport then owns; otherwise it spawns one when opened."""
        self.launch = launch
        self._given = process
        self._sink: MessageSink | None = None
        self._process: ChildProcess | None = None
        self._splitter = LineSplitter(launch.max_message_bytes)
        self._stderr = StderrRing()
        self._log: IO[bytes] | None = None
        self._closed_error: TransportError | None = None
        self._exited = asyncio.Event()
        self._stderr_done = asyncio.Event()
        # set when the server sends a request after its stdin was closed: it waits for an answer it
        # can never get (server-everything asks roots/list 350 ms after start), so it will not exit
        self._asked_too_late = asyncio.Event()
        self._returncode: int | None = None
        self._reporting_end = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._git_watch: asyncio.Task[None] | None = None
        self.pid: int | None = None

    @property
    def server(self) -> str:
        return self.launch.server

    @property
    def returncode(self) -> int | None:
        return self._returncode

    async def open(self, sink: MessageSink) -> None:
        """Join the server's process to the loop: the one it was given (spawned early), else one
        spawned now. Raises ServerStartError when it cannot be spawned."""
        self._sink = sink
        self._log = _open_log(self.launch.log_path)
        process, self._given = self._given, None
        if process is None:
            try:
                process = spawn_server(self.launch)
            except (OSError, subprocess.SubprocessError) as exc:
                self._close_log()
                raise ServerStartError(_spawn_failure(self.launch, exc), server=self.server) from exc
        pipes = PipesProtocol(self._pipe_data, self._pipe_closed, self._on_exit)
        try:
            self._process = await ServerProcess.attach(process, pipes)
        except BaseException:
            end_unused(process)
            self._close_log()
            raise
        self.pid = self._process.pid
        self._watch_git()

    def send(self, message: Mapping[str, object]) -> None:
        if self._closed_error is not None or self._process is None:
            raise self._closed_error or TransportError("the server's stdin is closed", server=self.server)
        if self._process.stdin_closing():  # it is going: what is waiting fails once it is known how
            self._going("the server closed its stdin")
            return
        self._process.write(jsonrpc.encode(message))

    @property
    def process_id(self) -> int | None:
        return self.pid

    @property
    def diagnostics_title(self) -> str:
        return "last stderr lines"

    def diagnostics(self) -> tuple[str, ...]:
        return self._stderr.tail()

    async def close(self) -> None:
        """Close stdin, give the server a moment (STDIN_CLOSE_GRACE_SECONDS), then SIGTERM → SIGKILL
        its whole group; returns once nothing of the group is left."""
        self._fail(TransportError("the connection was closed", server=self.server))
        if self._given is not None:  # never opened: its process was never joined to anything
            end_unused(self._given)
            self._given = None
        if self._process is None:
            self._close_log()
            return
        pid = self._process.pid
        self._process.close_stdin()
        await _first_of(self._exited, self._asked_too_late, within=STDIN_CLOSE_GRACE_SECONDS)
        await terminate_group(pid, leader_exited=self._exited)
        await wait_group_gone(pid, 0.5)
        WATCHDOG.unregister(pid)
        self._process.close()
        if self._git_watch is not None:  # its last check, once the server has ended
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._git_watch), LAST_GIT_CHECK_SECONDS)
        self._close_log()

    # --- the sandbox's check for planted git control entries -------------------------------------

    def _watch_git(self) -> None:
        policy = self.launch.sandbox
        if policy is not None and policy.writable:
            from levelcode.sandbox.git_watch import watch_planted  # only a sandboxed server needs it

            work = watch_planted(policy, self._ended_within, self._tell_planted)
            self._git_watch = asyncio.get_running_loop().create_task(work)

    async def _ended_within(self, seconds: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), seconds)
        return self._exited.is_set()

    def _tell_planted(self, lines: list[str]) -> None:
        for line in lines:
            self._stderr.add(line)
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.write(("\n".join(lines) + "\n").encode())
                self._log.flush()

    # --- called by the protocol ------------------------------------------------------------------

    def _stdout(self, data: bytes) -> None:
        for item in self._splitter.feed(data):
            if isinstance(item, Oversized):
                self._deliver(
                    jsonrpc.Malformed(
                        f"message larger than the {self.launch.max_message_bytes} byte limit",
                        jsonrpc.find_id(item.head),
                        fatal=True,
                    )
                )
            else:
                self._deliver(jsonrpc.parse_line(item))

    def _pipe_data(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._stdout(data)
        elif fd == 2:
            self._stderr_data(data)

    def _pipe_closed(self, fd: int) -> None:
        if fd == 0:
            self._going("the server closed its stdin")
        elif fd == 1:
            self._going("the server closed its stdout")
        elif fd == 2:
            self._stderr_done.set()

    def _stderr_data(self, data: bytes) -> None:
        self._stderr.feed(data)
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.write(data)
                self._log.flush()

    def _deliver(self, message: jsonrpc.Incoming) -> None:
        if self._sink is not None and self._closed_error is None:
            self._sink.on_message(message)
        elif isinstance(message, jsonrpc.Request):
            self._asked_too_late.set()

    def _on_exit(self, returncode: int) -> None:
        self._returncode = returncode
        self._exited.set()
        self._going("the server exited")

    def _going(self, sign: str) -> None:
        """A sign that the server is going: how it went is reported once, whichever sign came first."""
        if self._closed_error is None and not self._reporting_end:
            self._reporting_end = True
            self._watch(self._report_end(sign))

    async def _report_end(self, sign: str) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), EXIT_WAIT_SECONDS)
        if not self._exited.is_set():  # still running without its stdin or stdout
            self._fail(TransportError(sign, server=self.server))
            return
        with contextlib.suppress(TimeoutError):  # let its last stderr lines arrive, briefly
            await asyncio.wait_for(self._stderr_done.wait(), EXIT_STDERR_WAIT_SECONDS)
        detail = describe_exit(self._returncode)
        why = why_it_ended(self._stderr.kept())
        self._fail(
            ServerExited(f"server exited ({detail})", server=self.server, detail=detail, stderr_lines=why)
        )

    def _watch(self, work: Coroutine[object, object, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _fail(self, error: TransportError) -> None:
        if self._closed_error is not None:
            return
        self._closed_error = error
        if self._sink is not None:
            self._sink.on_closed(error)

    def _close_log(self) -> None:
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None


async def _first_of(*events: asyncio.Event, within: float) -> None:
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _open_log(path: Path | None) -> IO[bytes] | None:
    if path is None:
        return None
    try:
        private_folder(path.parent)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            path.replace(path.with_suffix(path.suffix + ".1"))
        log = append_private(path)
        log.write(f"--- {os.getpid()} starting {path.stem}\n".encode())
        return log
    except OSError:
        return None


def _spawn_failure(launch: StdioLaunch, exc: BaseException) -> str:
    command = launch.argv[0] if launch.argv else "(empty)"
    if isinstance(exc, FileNotFoundError):
        if not Path(launch.cwd).is_dir():
            return f"cannot start {command!r}: the working directory {launch.cwd} does not exist"
        if "/" in command and not command.startswith("/"):
            return f"cannot start {command!r}: not found relative to its working directory {launch.cwd}"
        return f"cannot start {command!r}: command not found (is it installed and on PATH?)"
    if isinstance(exc, PermissionError):
        return f"cannot start {command!r}: permission denied"
    return f"cannot start {command!r}: {exc}"
