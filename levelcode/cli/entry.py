"""The `levelcode` console script (and `python -m levelcode`). Imports nothing of LevelCode
before the servers this command line spawned last time are spawned again (remembered.py):
argument parsing, settings and the rest come after, in cli/main.py.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

from levelcode.mcp.stdio.remembered import spawn_remembered

TYPE_CHECKING = False  # not `typing`'s: nothing here may delay the spawn
if TYPE_CHECKING:
    from typing import NoReturn


def entry() -> NoReturn:
    """Spawn what this command line spawned early last time, run `main`, then exit quickly."""
    spawn_remembered(sys.argv[1:])
    from levelcode.cli.main import main

    exit_quickly(main())


def exit_quickly(code: int) -> NoReturn:
    """End the process without Python's own teardown of every module (~40 ms after `mcp list`,
    as long as a server's whole start) once nothing is left for it to do: the exit handlers run,
    the output is flushed. Where another thread still runs, the usual exit waits for it."""
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()  # early servers nobody claimed, the debug log's handler
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that left early: as Python itself reports it
        code = code or 120
    os._exit(code)
