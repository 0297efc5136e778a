"""Where `levelcode mcp list`'s time goes, phase by phase, with one server: the command run under
strace, which records only what the client does at the edges (the server's spawn, the JSON-RPC it
writes, its output, its signals, the server's end, its own exit), each phase the median of the
runs, beside the untraced command's wall time. Reads the process from outside, so it needs nothing
of LevelCode's layout and stays true as the code moves.

    uv run python bench/list_phases.py [--runs N] [--server everything|echo]

strace stops the process only at the calls it records (--seccomp-bpf), so a traced run is a little
slower than an untraced one; read the phases as shares of the whole. Needs strace (Debian's
package); says so and exits 3 without it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measured_runs import measured, ms  # noqa: E402
from bench.startup_bench import ECHO, EVERYTHING, LEVELCODE, env_for, home_with  # noqa: E402

TRACED = "execve,clone,clone3,vfork,write,kill,exit_group"
LINE = re.compile(r"(\d+) +([\d.]+) (.*)")
PHASES = (
    ("server spawned", "interpreter, imports and settings before the spawn"),
    ("initialize written", "imports and set-up after the spawn (the server boots meanwhile)"),
    ("initialize answered", "the server's boot still to go when LevelCode asked"),
    ("list printed", "initialized, the lists, rendering"),
    ("server gone", "stopping the server: stdin closed, the grace, the signal"),
    ("exit", "LevelCode's own exit"),
)


def events(trace: str, server: str) -> dict[str, float]:
    """Milliseconds from the command's start to each of PHASES' events in one strace -f -ttt log;
    `server`: a word of the server's command line that no other process's has."""
    rows = [
        (pid, float(at), call)
        for pid, at, call in (m.groups() for m in map(LINE.match, trace.splitlines()) if m)
    ]
    main, began = rows[0][0], rows[0][1]
    server_pid = next((pid for pid, _, call in rows if call.startswith("execve(") and server in call), None)
    if server_pid is None:
        raise RuntimeError(f"no process started {server} in the trace; did the list start its server?")
    ours = [(at, call) for pid, at, call in rows if pid == main]
    found = {
        "server spawned": _first(rows, lambda pid, call: pid == server_pid and call.startswith("execve(")),
        "initialize written": _first_of(
            ours, lambda call: call.startswith("write(") and '\\"initialize\\"' in call
        ),
        "initialize answered": _first_of(ours, lambda call: "notifications/initialized" in call),
        "list printed": _first_of(ours, lambda call: call.startswith("write(1,")),
        "server gone": _first(rows, lambda pid, call: pid == server_pid and call.startswith("+++")),
        "exit": _first_of(ours, lambda call: call.startswith(("exit_group", "+++"))),
    }
    return {name: (at - began) * 1000 for name, at in found.items() if at is not None}


def _first(rows: list[tuple[str, float, str]], match: Callable[[str, str], bool]) -> float | None:
    return next((at for pid, at, call in rows if match(pid, call)), None)


def _first_of(rows: list[tuple[float, str]], match: Callable[[str], bool]) -> float | None:
    return next((at for at, call in rows if match(call)), None)


def traced(argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> str:
    strace = ["strace", "-f", "--seccomp-bpf", "-ttt", "-s", "96", "-e", f"trace={TRACED}", "-o", str(log)]
    subprocess.run([*strace, *argv], env=env, cwd=cwd, check=True, capture_output=True, timeout=120)
    return log.read_text()


def report(runs: int, name: str, command: list[str]) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="levelcode-phases-"))
    env = env_for(home_with({name: {"command": command[0], "args": command[1:]}}))
    argv = [LEVELCODE, "mcp", "list"]
    measured(argv, env, scratch)  # the first contact: its era remembered
    seen: dict[str, list[float]] = {}
    untraced = []
    for _ in range(runs):
        untraced.append(measured(argv, env, scratch).wall)
        for event, at in events(traced(argv, env, scratch, scratch / "trace"), command[-1]).items():
            seen.setdefault(event, []).append(at)
    print(f"== levelcode mcp list with {name}: phases (median of {runs} traced runs) ==")
    before = 0.0
    for event, what in PHASES:
        if event not in seen:
            print(f"  {event:20} (not seen)")
            continue
        at = statistics.median(seen[event])
        print(f"  {event:20} at {ms(at / 1000)}  {ms((at - before) / 1000)}  {what}")
        before = at
    print(f"  untraced, the whole command: {ms(statistics.median(untraced))} (median of {runs})")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--server", choices=("everything", "echo"), default="everything")
    opts = parser.parse_args()
    if shutil.which("strace") is None:
        print("list_phases: strace is not installed (apt-get install strace)", file=sys.stderr)
        return 3
    report(opts.runs, opts.server, [EVERYTHING] if opts.server == "everything" else ECHO)
    return 0


if __name__ == "__main__":
    sys.exit(main())
