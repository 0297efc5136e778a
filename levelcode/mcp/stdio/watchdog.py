"""The watchdog: a tiny sidecar process that kills our servers' process groups if LevelCode dies.

Run as a script by `reaper.py`, standard library only, in its own session so terminal signals
do not reach it. LevelCode writes `+PGID` / `-PGID` lines to its stdin. When that pipe reaches
end-of-file — LevelCode exited, crashed or was SIGKILLed; the kernel closes the pipe in every
case — it sends SIGTERM to every group still registered, and SIGKILL to what is left 1.5 s later.
Never signals a group it was not told about, or one it was told to forget; imports nothing of
LevelCode.
"""

import os
import signal
import time

TERM_GRACE_SECONDS = 1.5
POLL_SECONDS = 0.05


def _read_groups() -> set[int]:
    groups: set[int] = set()
    pending = b""
    while True:
        try:
            chunk = os.read(0, 4096)
        except InterruptedError:
            continue
        except OSError:
            return groups
        if not chunk:
            return groups
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            _apply(groups, line.strip())


def _apply(groups: set[int], line: bytes) -> None:
    if len(line) < 2 or not line[1:].isdigit():
        return
    pgid = int(line[1:])
    if pgid <= 1:
        return
    if line[:1] == b"+":
        groups.add(pgid)
    elif line[:1] == b"-":
        groups.discard(pgid)


def _signal_groups(groups: set[int], sig: int) -> set[int]:
    alive: set[int] = set()
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
            alive.add(pgid)
        except ProcessLookupError:
            pass
        except PermissionError:
            alive.add(pgid)
    return alive


def main() -> None:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    groups = _read_groups()
    alive = _signal_groups(groups, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE_SECONDS
    while alive and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        alive = _signal_groups(alive, 0)
    _signal_groups(alive, signal.SIGKILL)


if __name__ == "__main__":
    main()
