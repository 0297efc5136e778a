"""One command run to its end, as the start-up bench counts it: wall time, CPU and peak memory (from
wait4, so the children it reaped count too), what it printed, and the processes it left behind;
commands interleaved round by round, and their medians. Measures; never judges a figure.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

RUN_TIMEOUT_SECONDS = 120


@dataclass(frozen=True)
class Run:
    wall: float  # seconds, from the spawn until the command is reaped
    cpu: float  # seconds of user and system time: the command's and the children's it reaped
    peak_kib: int  # the largest resident set among the command and the children it reaped
    own_peak_kib: int  # the command's own peak resident set, as last seen before it ended
    output: str  # stdout and stderr together


def measured(
    argv: list[str], env: Mapping[str, str], cwd: Path, before: Callable[[], None] = lambda: None
) -> Run:
    """Run `argv` to its end and reap it with wait4, for its resource usage; its output goes to a
    file (not a pipe nobody reads while it runs). Fails loudly on a non-zero status."""
    before()
    with tempfile.TemporaryFile() as out:
        began = time.perf_counter()
        process = subprocess.Popen(
            argv, env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
        overdue = threading.Timer(RUN_TIMEOUT_SECONDS, process.kill)
        overdue.start()
        own_peak = PeakWatch(process.pid)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - began
        overdue.cancel()
        own_peak.stop()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    if process.returncode != 0:
        raise RuntimeError(f"{argv} failed ({process.returncode}):\n{output[-2000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, own_peak.kib, output)


class PeakWatch:
    """The peak resident set (VmHWM) of one process, read every 10 ms until it ends: wait4 gives
    only the largest among it and its reaped children, and a server may be the larger."""

    def __init__(self, pid: int) -> None:
        self.kib = 0
        self._status = Path(f"/proc/{pid}/status")
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(0.01):
            try:
                lines = self._status.read_text().splitlines()
            except OSError:  # gone
                return
            for line in lines:
                if line.startswith("VmHWM:"):
                    self.kib = max(self.kib, int(line.split()[1]))

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def left_behind(home: Path) -> int:
    """Processes still running with the run's HOME (its servers get it), but LevelCode's watchdog,
    which leaves by itself once LevelCode has gone."""
    marker = f"HOME={home}".encode()
    count = 0
    for proc in Path("/proc").iterdir():
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            if marker in environ and b"watchdog.py" not in (proc / "cmdline").read_bytes():
                count += 1
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return count


def counting(leftovers: list[int], home: Path, run: Callable[[], Run]) -> Callable[[], Run]:
    def run_and_count() -> Run:
        result = run()
        leftovers.append(left_behind(home))
        return result

    return run_and_count


def saying(words: str, run: Callable[[], Run]) -> Callable[[], Run]:
    """`run`, failing loudly unless its output has `words` (the server started, not just listed)."""

    def run_and_check() -> Run:
        result = run()
        if words not in result.output:
            raise RuntimeError(f"expected {words!r} in the output; it was:\n{result.output[-2000:]}")
        return result

    return run_and_check


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.0f} ms"


def interleaved(runs: int, **commands: Callable[[], Run]) -> dict[str, list[Run]]:
    """Each command once per round, `runs` rounds, the order reversed every other round so that
    no command always follows the same one."""
    results: dict[str, list[Run]] = {name: [] for name in commands}
    for round_ in range(runs):
        names = list(commands) if round_ % 2 == 0 else list(reversed(commands))
        for name in names:
            results[name].append(commands[name]())
    return results


@dataclass(frozen=True)
class Medians:
    wall: float
    cpu: float
    peak_mib: float
    own_peak_mib: float

    @classmethod
    def of(cls, runs: list[Run]) -> Medians:
        return cls(
            statistics.median(r.wall for r in runs),
            statistics.median(r.cpu for r in runs),
            statistics.median(r.peak_kib for r in runs) / 1024,
            statistics.median(r.own_peak_kib for r in runs) / 1024,
        )

    def row(self, label: str, note: str = "") -> str:
        peaks = f"{self.own_peak_mib:6.0f} MiB {self.peak_mib:6.0f} MiB"
        return f"  {label:50} {ms(self.wall)} {ms(self.cpu)} {peaks}  {note}"
