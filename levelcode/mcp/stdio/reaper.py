"""The two layers under the orderly end of server process groups, so that no server outlives
LevelCode however it ends: this module owns the watchdog's client and the parent-death signal.

- the orderly path is the transport's close (platform/process_groups.py `terminate_group`: SIGTERM to
  the whole group, SIGKILL ~1.5 s later to whatever ignored it, grandchildren included), run on
  exit, /new, signals and when a command is done with its servers;
- the watchdog sidecar (watchdog.py), one per LevelCode process: if we are SIGKILLed it sees its
  pipe close and kills every registered group;
- a parent-death signal on each server's own process (Linux), which covers the instant between
  spawning a server and registering its group with the watchdog.
Must never kill a group it did not start: only pgids of our own spawned servers are registered.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

_WATCHDOG_SCRIPT = Path(__file__).with_name("watchdog.py")


class Watchdog:
    """The client side of the watchdog sidecar; started on first use, one per process."""

    def __init__(self) -> None:
        self._fd: int | None = None
        self._pid: int | None = None
        self._owner_pid = 0
        self._lock = threading.Lock()

    def register(self, pgid: int) -> None:
        self._send(f"+{pgid}\n")

    def unregister(self, pgid: int) -> None:
        if self._fd is not None:
            self._send(f"-{pgid}\n")

    @property
    def pid(self) -> int | None:
        return self._pid if self._owner_pid == os.getpid() else None

    def _send(self, line: str) -> None:
        with self._lock:
            for _attempt in range(2):
                fd = self._ensure_started()
                try:
                    os.write(fd, line.encode("ascii"))
                    return
                except OSError:  # the sidecar is gone (someone killed it): start a new one
                    self._forget()

    def _ensure_started(self) -> int:
        if self._fd is not None and self._owner_pid == os.getpid():
            return self._fd
        read_end, write_end = os.pipe()  # both close-on-exec: no server can inherit the write end
        try:
            self._pid = os.posix_spawn(
                sys.executable,
                [sys.executable, "-I", "-S", str(_WATCHDOG_SCRIPT)],
                dict(os.environ),
                file_actions=[(os.POSIX_SPAWN_DUP2, read_end, 0)],
                setsid=True,
            )
        finally:
            os.close(read_end)
        self._fd, self._owner_pid = write_end, os.getpid()
        return write_end

    def _forget(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd, self._pid = None, None


WATCHDOG = Watchdog()


@functools.cache
def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    return prctl


def parent_death_signal() -> Callable[[], None] | None:
    """A pre-exec hook that makes the child die with its parent (Linux only), or None elsewhere.

    The signal fires when the *thread* that spawned the child ends, so servers are spawned from
    the event loop's thread only.
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def hook() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the hook ran
            os._exit(1)

    return hook
