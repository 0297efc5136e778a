"""The `levelcode` console script (and `python -m levelcode`): runs `main` (cli/main.py), and ends
quietly when the reader of its output left early (`levelcode mcp list | head -1`): no traceback,
no "Exception ignored" at exit, the status a shell gives a program stopped by SIGPIPE.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn, TextIO

# A shell's status for a program stopped by SIGPIPE (128 + 13): what `levelcode mcp list | head -1`
# ends with once `head` has left, as `yes | head -1` does.
READER_LEFT = 141


def entry() -> NoReturn:
    """Run `main`, then exit with its status once the output is flushed."""
    from levelcode.cli.main import main

    try:
        code = main()
    except BrokenPipeError:  # raised after the command's own cleanup (its servers are reaped)
        code = reader_left()
    sys.exit(_flushed(code))


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
