"""Process probes for the command-tool tests: by pid through /proc, never through the code under
test. A zombie counts as gone: it has exited, and in a container nobody may ever reap it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path


def _stat_fields(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()  # state, ppid, pgrp, ...


def is_running(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """Running processes whose process group is `pgid`."""
    found = []
    for entry in os.listdir("/proc"):
        fields = _stat_fields(int(entry)) if entry.isdigit() else None
        if fields and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def survivors(pids: list[int], pgid: int, within: float = 5.0) -> list[int]:
    """The pids (and members of group `pgid`) still running after up to `within` seconds."""
    deadline = time.monotonic() + within
    alive = sorted({*(p for p in pids if is_running(p)), *group_members(pgid)})
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)  # polling for death, with a deadline; nothing signals it
        alive = sorted({*(p for p in alive if is_running(p)), *group_members(pgid)})
    return alive


async def read_fifo_line(path: Path, within: float = 10.0) -> str:
    """The first line a command writes into the FIFO at `path`; waits on readiness, never sleeps."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    loop.add_reader(fd, ready.set)
    data = b""
    try:
        async with asyncio.timeout(within):
            while b"\n" not in data:
                await ready.wait()
                ready.clear()
                with contextlib.suppress(BlockingIOError):
                    data += os.read(fd, 4096)
    finally:
        loop.remove_reader(fd)
        os.close(fd)
    return data.decode().split("\n", 1)[0]


def make_fifo(directory: Path) -> Path:
    path = directory / "ready.fifo"
    os.mkfifo(path)
    return path


def processes_running(token: str, program: str = "sleep") -> list[int]:
    """Running `program` processes whose command line contains `token`: how a test finds what a
    sandboxed command started, whose own pids are those of its private pid namespace."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            cmdline = (
                Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        if comm == program and token in cmdline and is_running(int(entry)):
            found.append(int(entry))
    return found


def running_after(token: str, within: float = 5.0, *, expected: int = 0) -> list[int]:
    """The sleeps with `token` still running once at most `expected` are left, or `within` seconds."""
    deadline = time.monotonic() + within
    alive = processes_running(token)
    while len(alive) > expected and time.monotonic() < deadline:
        time.sleep(0.02)  # polling for death, with a deadline; nothing signals it
        alive = processes_running(token)
    return alive


async def until_running(token: str, count: int, within: float = 15.0) -> list[int]:
    """The sleeps with `token`, once `count` of them run; TimeoutError after `within` seconds."""
    async with asyncio.timeout(within):
        while len(found := processes_running(token)) < count:
            await asyncio.sleep(0.02)  # polling for processes to appear, with a deadline
    return found
