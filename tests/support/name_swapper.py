"""A process that keeps exchanging two names in a folder (renameat2 RENAME_EXCHANGE): a folder and
a symbolic link out, a saved file and a link to a secret. What the file tools' race tests run
beside the tools; `SCRIPT` is also what a hostile repository ships for the end-to-end attack."""

from __future__ import annotations

import contextlib
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

# argv: the two names, in the working folder. Exchanges them until killed, until a file `stop`
# appears, or for a minute; prints "swapping" once the first exchange is done.
SCRIPT = """\
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
first, second = (name.encode() for name in sys.argv[1:3])
end = time.monotonic() + 60
said = False
while not os.path.exists("stop") and time.monotonic() < end:
    if libc.renameat2(-100, first, -100, second, 2) != 0:
        sys.exit("renameat2: errno %d" % ctypes.get_errno())
    if not said:
        print("swapping", flush=True)
        said = True
"""
READY_WITHIN = 20.0


@contextlib.contextmanager
def swapping(folder: Path, first: str, second: str) -> Iterator[subprocess.Popen[str]]:
    """`first` and `second` in `folder` exchanged over and over while the block runs."""
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, first, second],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], READY_WITHIN)
        line = process.stdout.readline() if ready else ""
        assert line == "swapping\n", f"the swapper did not start: {line!r} {process.poll()}"
        yield process
        assert process.poll() is None, "the swapper stopped early: " + (
            process.stderr.read() if process.stderr else ""
        )
    finally:
        process.kill()
        process.communicate(timeout=10)
