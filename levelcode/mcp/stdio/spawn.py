"""The one way a stdio server is spawned: `Popen` in its own session and process group, with the
parent-death signal, registered with the watchdog at once. The early start (mcp/live/early_start.py)
and the transport both spawn with it; the process is joined to the event loop afterwards
(process.py), so spawning needs no loop and imports none — the early start spawns before asyncio
is loaded.

Never decides what may start (the launch gate does, before) and never ends a process that was
handed on: `end_unused` ends only one that never was.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.mcp.stdio.reaper import WATCHDOG, parent_death_signal


def spawn_server(launch: StdioLaunch) -> subprocess.Popen[bytes]:
    """Start the server now, from the thread that will run the loop (its parent-death signal
    follows that thread). Raises OSError or SubprocessError when it cannot be started."""
    process = subprocess.Popen(
        list(launch.argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(launch.env),
        cwd=launch.cwd,
        start_new_session=True,
        preexec_fn=parent_death_signal(),  # noqa: PLW1509  (the hook only calls prctl and getppid)
    )
    WATCHDOG.register(process.pid)
    return process


def end_unused(process: subprocess.Popen[bytes]) -> None:
    """End a server that was never joined to a transport, whole group, at once: it was sent
    nothing, so it has nothing to finish."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
    WATCHDOG.unregister(process.pid)
