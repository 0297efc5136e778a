"""Checking processes by pid, for the no-orphans tests. A zombie counts as gone: it has exited,
and in a container nobody may ever reap it."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from pathlib import Path


def is_running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        return True
    state = stat[stat.rfind(")") + 2 :].split()[0]
    return state not in ("Z", "X")


def survivors(pids: list[int], within: float = 5.0) -> list[int]:
    """The pids still running after waiting up to `within` seconds for all of them to end."""
    deadline = time.monotonic() + within
    alive = [p for p in pids if is_running(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [p for p in alive if is_running(p)]
    return alive


def read_pids(path: Path) -> list[int]:
    if not path.exists():
        return []
    return [int(line) for line in path.read_text().split() if line.strip()]


def _stat_fields(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()


def group_members(pgid: int) -> list[int]:
    """Running processes whose process group is `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry))
    return members


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields and int(fields[1]) == pid and fields[0] not in ("Z", "X"):
                found.append(int(entry))
    return found


def wait_until(predicate: object, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.02)
    return False


def wait_for_output(stream: object, needle: str, within: float = 30.0) -> str:
    """Read a subprocess pipe until `needle` appears; everything read so far. Raises on timeout or EOF."""
    import selectors

    fileno = stream.fileno()  # type: ignore[attr-defined]
    seen = b""
    deadline = time.monotonic() + within
    with selectors.DefaultSelector() as selector:
        selector.register(fileno, selectors.EVENT_READ)
        while needle.encode() not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise TimeoutError(f"{needle!r} did not appear; got {seen.decode(errors='replace')!r}")
            chunk = os.read(fileno, 65536)
            if not chunk:
                raise EOFError(f"stream ended before {needle!r}; got {seen.decode(errors='replace')!r}")
            seen += chunk
    return seen.decode(errors="replace")


RACE_WAIT = 60.0


def run_together(argvs: list[list[str]], env: dict[str, str] | None = None) -> None:
    """Start one `python -c` per argv, release them all at once, and wait (bounded) for each."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
            env=env,
        )
        for argv in argvs
    ]
    try:
        for proc in procs:
            assert _first_line(proc) == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for proc in procs:
            _out, err = proc.communicate(timeout=RACE_WAIT)
            assert proc.returncode == 0, err
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=RACE_WAIT)


def _first_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=RACE_WAIT):
            raise AssertionError(f"process {proc.pid} did not start within {RACE_WAIT}s")
    return proc.stdout.readline().strip()
