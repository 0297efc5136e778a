"""The time until LevelCode's interactive prompt is drawn, read in a real pseudo-terminal as a user
sees it (and, if asked, until the servers' summary line shows). Leaves as a user does, with Ctrl-D,
so the servers are reaped; measures, never judges.
"""

from __future__ import annotations

import os
import pty
import select
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

CURSOR_QUERY, CURSOR_ANSWER = b"\x1b[6n", b"\x1b[1;1R"
HINT = b"Ctrl-D leaves"  # the hint line the prompt is drawn below
SUMMARY = b"mcp \xc2\xb7 "  # the servers' summary line ("mcp · 10 servers ...")


def prompt_times(
    argv: Sequence[str], env: Mapping[str, str], workspace: Path, summary: bool
) -> tuple[float, float | None]:
    """Seconds until the REPL's prompt shows, and (when `summary`) until the servers' summary does."""
    began = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the REPL, on the pseudo-terminal
        os.chdir(workspace)
        os.execve(argv[0], list(argv), dict(env))
    seen, prompt_at, summary_at = b"", None, None
    deadline = began + 30
    try:
        while time.perf_counter() < deadline and (prompt_at is None or (summary and summary_at is None)):
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if CURSOR_QUERY in chunk:  # prompt_toolkit asks where the cursor is; a terminal answers
                os.write(fd, CURSOR_ANSWER)
            seen += chunk
            now = time.perf_counter() - began
            hint = seen.find(HINT)
            if prompt_at is None and hint >= 0 and b">" in seen[hint:]:  # the prompt drawn below it
                prompt_at = now
            if summary_at is None and SUMMARY in seen:
                summary_at = now
    finally:
        os.write(fd, b"\x04")  # Ctrl-D: leave as a user would, servers reaped
        _wait_gone(pid)
        os.close(fd)
    if prompt_at is None:
        raise RuntimeError(f"the prompt never appeared; the terminal showed: {seen[-2000:]!r}")
    return prompt_at, summary_at


def _wait_gone(pid: int) -> None:
    """Reap the REPL within 10 s of its Ctrl-D, else kill it: a bench never leaves one behind."""
    for _ in range(200):
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
