"""The `levelcode` console script (and `python -m levelcode`). Imports nothing of LevelCode
before the servers this command line spawned last time are spawned again (remembered.py):
argument parsing, settings and the rest come after, in cli/main.py.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading

from levelcode.mcp.stdio.remembered import spawn_remembered

TYPE_CHECKING = False  # not `typing`'s: nothing here may delay the spawn
if TYPE_CHECKING:
    from typing import NoReturn, TextIO


# A shell's status for a program stopped by SIGPIPE (128 + 13): what `levelcode mcp list | head -1`
# ends with once `head` has left, as `yes | head -1` does.
READER_LEFT = 141


def entry() -> NoReturn:
    """Spawn what this command line spawned early last time, run `main`, then exit quickly."""
    spawn_remembered(sys.argv[1:])
    from levelcode.cli.main import main

    try:
        code = main()
    except BrokenPipeError:  # raised after the command's own cleanup (its servers are reaped)
        code = reader_left()
    exit_quickly(code)


def reader_left() -> int:
    """The reader of our output is gone (`| head -1`): what is still buffered goes nowhere, quietly
    (no traceback, no "Exception ignored" at exit), and the status is READER_LEFT."""
    _to_nowhere(sys.stdout)  # whatever it still holds, nobody reads it now
    try:
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # `2>&1 | head`: the same reader
        _to_nowhere(sys.stderr)
    return READER_LEFT


def _to_nowhere(stream: TextIO) -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def exit_quickly(code: int) -> NoReturn:
    """End the process without Python's own teardown of every module (~40 ms after `mcp list`,
    as long as a server's whole start) once nothing is left for it to do: the exit handlers run,
    the output is flushed. Where another thread still runs, the usual exit waits for it."""
    if threading.active_count() > 1:
        sys.exit(_flushed(code))
    atexit._run_exitfuncs()  # early servers nobody claimed, the debug log's handler
    os._exit(_flushed(code))


def _flushed(code: int) -> int:
    """The exit status once the output is flushed: READER_LEFT when its reader left early."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        return code or reader_left()
    except ValueError:  # a stream closed by the command itself: as Python itself reports it
        return code or 120
    return code
