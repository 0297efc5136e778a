"""Signalling and waiting for whole process groups: shared by MCP servers and shell commands.

A group is gone when no *live* process is left in it. Zombies do not count: an orphan that was
killed stays a zombie until init reaps it, and some container inits never do, so counting them
would make every stop wait out its whole grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

TERM_GRACE_SECONDS = 1.5
_FIRST_POLL_SECONDS = 0.002  # most groups end within milliseconds of the signal (a sandbox's at once)
_POLL_SECONDS = 0.05


def _live_member_in_proc(pgid: int) -> bool | None:
    """Whether /proc lists a non-zombie process in the group; None where there is no /proc."""
    try:
        entries = [entry.path for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError:
        return None
    for path in entries:
        try:
            stat = Path(path, "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # state, ppid, pgrp, ...
        if len(fields) > 2 and fields[0] not in ("Z", "X") and fields[2] == str(pgid):
            return True
    return False


def group_alive(pgid: int) -> bool:
    """Whether any live process is left in the group."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    live = _live_member_in_proc(pgid)
    return True if live is None else live


def signal_group(pgid: int, signum: int) -> bool:
    """Send `signum` to the whole group; False when nothing is left in it to signal."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def wait_group_gone(pgid: int, seconds: float, *, leader_exited: asyncio.Event | None = None) -> bool:
    """Whether the group was gone within `seconds`. `leader_exited`, when given, is awaited first
    (bounded): the group's leader usually goes last, and its exit is an event, not a poll."""
    deadline = time.monotonic() + seconds
    if leader_exited is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(leader_exited.wait(), seconds)
    pause = _FIRST_POLL_SECONDS
    while group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(pause)  # no event tells us when orphans in a group die
        pause = min(pause * 2, _POLL_SECONDS)
    return True


async def terminate_group(
    pgid: int, grace: float = TERM_GRACE_SECONDS, *, leader_exited: asyncio.Event | None = None
) -> None:
    """SIGTERM the whole group, SIGKILL whatever is left after `grace` seconds: the one shutdown
    of a process group, for shell commands and MCP servers alike.

    The SIGKILL sits in a `finally`, so being cancelled during the grace still ends the group.
    """
    if not group_alive(pgid) or not signal_group(pgid, signal.SIGTERM):
        return
    gone = False
    try:
        gone = await wait_group_gone(pgid, grace, leader_exited=leader_exited)
    finally:
        if not gone:
            signal_group(pgid, signal.SIGKILL)
    if not gone:
        with contextlib.suppress(asyncio.CancelledError):
            await wait_group_gone(pgid, grace)


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exit code {returncode}"
