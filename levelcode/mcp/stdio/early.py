"""Servers spawned before the event loop runs — at the first moment a session has read its
configuration — and claimed by their transport when it opens (adopted.py joins them to the loop).

Spawned exactly as the transport would spawn them (own session and process group, the parent-death
signal, registered with the watchdog at once), from the main thread, which later runs the loop.
A process nobody claims is ended with the rest (`end_unclaimed`, called by the hub's reaping and
at exit). Never decides *what* may start: callers hand it only launches the gate lets start
without asking.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence

from levelcode.mcp.stdio.reaper import WATCHDOG, parent_death_signal

TYPE_CHECKING = False  # not `typing`'s: this module is imported before the first spawn, typing is not
if TYPE_CHECKING:
    from levelcode.mcp.stdio.launch_spec import StdioLaunch

Identity = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str]
_waiting: dict[Identity, subprocess.Popen[bytes]] = {}


def identity(argv: Sequence[str], env: Mapping[str, str], cwd: str) -> Identity:
    """What makes two launches the same process: argv, environment, directory."""
    return (tuple(argv), tuple(sorted(env.items())), cwd)


def spawn_early(launch: StdioLaunch) -> bool:
    """Start the server now; False when it cannot (its transport then spawns it, and reports why)."""
    return spawn_process(launch.argv, launch.env, launch.cwd)


def spawn_process(argv: Sequence[str], env: Mapping[str, str], cwd: str) -> bool:
    """`spawn_early` for a launch given by its parts (remembered.py has no StdioLaunch to hand)."""
    key = identity(argv, env, cwd)
    if key in _waiting:
        return True
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            # before the loop and its threads exist: the one moment a pre-exec hook is safe
            preexec_fn=parent_death_signal(),  # noqa: PLW1509
        )
    except (OSError, subprocess.SubprocessError):
        return False
    WATCHDOG.register(process.pid)
    _waiting[key] = process
    return True


def claim(launch: StdioLaunch) -> subprocess.Popen[bytes] | None:
    """The process spawned early for exactly this launch, if there is one and it still runs."""
    process = _waiting.pop(identity(launch.argv, launch.env, launch.cwd), None)
    if process is not None and process.poll() is not None:
        _end(process)  # it died before anyone listened: start afresh, so its failure is seen
        return None
    return process


def unclaimed() -> int:
    return len(_waiting)


def end_unclaimed() -> None:
    """End every early process nobody claimed (whole groups), and forget them."""
    while _waiting:
        _end(_waiting.popitem()[1])


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # it has done nothing for anyone yet
    process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
    WATCHDOG.unregister(process.pid)


atexit.register(end_unclaimed)
