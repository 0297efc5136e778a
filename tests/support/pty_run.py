"""Running `levelcode` with a pseudo-terminal as its stdout and stderr, keeping every raw byte it
writes: what a terminal would have been sent, before any terminal interprets it."""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PtyRun:
    returncode: int
    output: bytes  # stdout and stderr as the terminal received them

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")


def run_in_pty(
    argv: Sequence[str], env: Mapping[str, str], *, cwd: Path | None = None, within: float = 60.0
) -> PtyRun:
    """Run to completion (bounded by `within` seconds) with a pty of 120x40 on stdout and stderr."""
    master, slave = os.openpty()
    os.set_inheritable(slave, True)
    _set_size(slave, 40, 120)
    process = subprocess.Popen(
        list(argv), stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=dict(env), cwd=cwd
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return PtyRun(code, b"".join(chunks))


def _set_size(fd: int, rows: int, columns: int) -> None:
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
