"""Start-up benchmark: what LevelCode costs before its servers are of use, each figure beside its
baseline in one run (interleaved, medians).

    uv run python bench/startup_bench.py [--quick] [--runs N]

1. `levelcode mcp list` with one server-everything configured, against the floor: a stdlib-only
   Python client that spawns the same server, initializes, lists its tools, closes its stdin and
   waits for it to exit, and against Claude Code's `claude mcp list` where `claude` is installed.
   Target: <= 1.10x the floor. server-everything lingers ~370 ms after its stdin closes, which the
   floor waits out and LevelCode need not (it signals the group after a short grace), so
   LevelCode may come in under the floor, but never by leaving a process behind: every process
   that carries the run's HOME is counted the moment each command returns (target: none).
2. Cold against warm first contact: `levelcode mcp list` with every local server configured,
   once with no protocol memory (state removed before each run) and once with it. Target: cold
   <= 1.15x warm.
3. Time to the interactive prompt with 10 servers configured, in a real pseudo-terminal, beside
   the same with none, and when the 10 servers' summary line appears (their start overlaps the
   prompt). The prompt counts once it is drawn, below its hint line. Target: < 0.5 s.

The machines are shared and noisy: read the ratios, and run it twice before believing one.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "node_modules" / ".bin"
EVERYTHING = str(BIN / "mcp-server-everything")
LEVELCODE = str(Path(sys.executable).parent / "levelcode")
CURSOR_QUERY, CURSOR_ANSWER = b"\x1b[6n", b"\x1b[1;1R"

FLOOR = r"""
import json, subprocess, sys
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(message):
    server.stdin.write(json.dumps(message).encode() + b"\n"); server.stdin.flush()
def ask(ident, method, params):
    send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    while True:
        answer = json.loads(server.stdout.readline())
        if answer.get("id") == ident:
            return answer["result"]
info = {"name": "floor", "version": "1"}
ask(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
print(len(ask(2, "tools/list", {})["tools"]), "tools")
server.stdin.close()
try:
    server.wait(timeout=5)
except subprocess.TimeoutExpired:
    server.kill(); server.wait()
"""


def local_servers() -> dict[str, dict[str, object]]:
    """Every server this checkout has installed (npm reference servers, PyPI ones in .venv)."""
    venv = Path(sys.executable).parent
    found: dict[str, dict[str, object]] = {
        "everything": {"command": EVERYTHING},
        "memory": {"command": str(BIN / "mcp-server-memory")},
        "filesystem": {"command": str(BIN / "mcp-server-filesystem"), "args": [str(ROOT)], "roots": False},
        "time": {"command": str(venv / "mcp-server-time")},
        "git": {"command": str(venv / "mcp-server-git"), "args": ["--repository", str(ROOT)]},
    }
    return {name: entry for name, entry in found.items() if Path(str(entry["command"])).exists()}


def home_with(servers: Mapping[str, object], extra: Mapping[str, object] | None = None) -> Path:
    home = Path(tempfile.mkdtemp(prefix="levelcode-bench-"))
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers, **(extra or {})}))
    return home


def env_for(home: Path) -> dict[str, str]:
    # bytecode written and used, as on a user's machine (a CI image may turn it off)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "LEVELCODE_HOME": str(home), "HOME": str(home)}


def timed(
    argv: list[str], env: Mapping[str, str], cwd: Path, before: Callable[[], None] = lambda: None
) -> float:
    before()
    began = time.perf_counter()
    subprocess.run(argv, env=dict(env), cwd=cwd, check=True, capture_output=True, timeout=120)
    return time.perf_counter() - began


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


def counting(leftovers: list[int], home: Path, run: Callable[[], float]) -> Callable[[], float]:
    def run_and_count() -> float:
        seconds = run()
        leftovers.append(left_behind(home))
        return seconds

    return run_and_count


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.0f} ms"


def interleaved(runs: int, **commands: Callable[[], float]) -> dict[str, float]:
    """Each command once per round, in turn, `runs` rounds; the median of each."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(command())
    return {name: statistics.median(values) for name, values in times.items()}


def report_mcp_list(runs: int, workspace: Path) -> None:
    home = home_with({"everything": {"command": EVERYTHING}})
    env = env_for(home)
    timed([LEVELCODE, "mcp", "list"], env, workspace)  # the first contact: its era remembered
    leftovers: list[int] = []
    commands: dict[str, Callable[[], float]] = {
        "floor": lambda: timed([sys.executable, "-c", FLOOR, EVERYTHING], env, workspace),
        "levelcode": counting(leftovers, home, lambda: timed([LEVELCODE, "mcp", "list"], env, workspace)),
    }
    claude = shutil.which("claude")
    if claude:
        claude_home = Path(tempfile.mkdtemp(prefix="levelcode-bench-claude-"))
        (claude_home / ".mcp.json").write_text(
            json.dumps({"mcpServers": {"everything": {"command": EVERYTHING}}})
        )
        commands["claude"] = lambda: timed([claude, "mcp", "list"], env, claude_home)
    medians = interleaved(runs, **commands)
    floor = medians["floor"]
    print(f"\n== levelcode mcp list, one server-everything (median of {runs}, interleaved) ==")
    print(f"  floor (stdlib client: spawn, initialize, list, close, wait)   {ms(floor)}")
    print(
        f"  levelcode mcp list                                            {ms(medians['levelcode'])}   "
        f"{medians['levelcode'] / floor:5.2f}x the floor  (target <= 1.10x)"
    )
    print(f"  processes left behind when it returned, over {runs} runs: {sum(leftovers)}  (target 0)")
    if "claude" in medians:
        print(
            f"  claude mcp list                                               {ms(medians['claude'])}   "
            f"{medians['claude'] / floor:5.2f}x the floor"
        )
    else:
        print("  claude mcp list: not installed here (nothing to compare)")


def report_first_contact(runs: int, workspace: Path) -> None:
    servers = local_servers()
    home = home_with(servers)
    env = env_for(home)
    memory = home / "state" / "protocols.json"
    timed([LEVELCODE, "mcp", "list"], env, workspace)
    forget: Callable[[], None] = lambda: memory.unlink(missing_ok=True)  # noqa: E731
    leftovers: list[int] = []
    medians = interleaved(
        runs,
        cold=counting(leftovers, home, lambda: timed([LEVELCODE, "mcp", "list"], env, workspace, forget)),
        warm=counting(leftovers, home, lambda: timed([LEVELCODE, "mcp", "list"], env, workspace)),
    )
    print(f"\n== first contact: mcp list of {len(servers)} servers ({', '.join(servers)}) ==")
    print(f"  warm (protocol era remembered)   {ms(medians['warm'])}")
    print(
        f"  cold (nothing remembered)        {ms(medians['cold'])}   "
        f"{medians['cold'] / medians['warm']:5.2f}x warm  (target <= 1.15x)"
    )
    starts = (home / "state" / "logs" / "everything.log").read_text().count(" starting ")
    print(f"  server-everything processes started over {2 * runs + 1} lists: {starts}")
    print(f"  processes left behind when it returned, over {2 * runs} lists: {sum(leftovers)}  (target 0)")


def prompt_times(home: Path, workspace: Path, chip: bool) -> tuple[float, float | None]:
    """Seconds until the REPL's prompt shows, and (when `chip`) until the servers' summary does."""
    env = {**env_for(home), "ANTHROPIC_API_KEY": "bench-key-not-used", "TERM": "xterm", "COLUMNS": "200"}
    began = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the REPL, on the pseudo-terminal
        os.chdir(workspace)
        os.execve(LEVELCODE, [LEVELCODE, "--provider", "anthropic"], env)
    seen, prompt_at, chip_at = b"", None, None
    deadline = began + 30
    try:
        while time.perf_counter() < deadline and (prompt_at is None or (chip and chip_at is None)):
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if CURSOR_QUERY in chunk:  # prompt_toolkit asks where the cursor is; a terminal answers
                os.write(fd, CURSOR_ANSWER)
            seen += chunk
            now = time.perf_counter() - began
            hint = seen.find(b"Ctrl-D leaves")
            if prompt_at is None and hint >= 0 and b">" in seen[hint:]:  # the prompt drawn below it
                prompt_at = now
            if chip_at is None and b"mcp \xc2\xb7 " in seen:
                chip_at = now
    finally:
        os.write(fd, b"\x04")  # Ctrl-D: leave as a user would, servers reaped
        _wait_gone(pid)
        os.close(fd)
    if prompt_at is None:
        raise RuntimeError(f"the prompt never appeared; the terminal showed: {seen[-2000:]!r}")
    return prompt_at, chip_at


def _wait_gone(pid: int) -> None:
    for _ in range(200):
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)


def report_prompt(runs: int, workspace: Path) -> None:
    local = local_servers()
    names = list(local)
    ten = {f"{names[i % len(names)]}-{i}": local[names[i % len(names)]] for i in range(10)}
    none_home, ten_home = home_with({}), home_with(ten)
    prompt_times(ten_home, workspace, chip=True)  # the first contact of each, remembered
    bare, loaded, chips = [], [], []
    for _ in range(runs):
        bare.append(prompt_times(none_home, workspace, chip=False)[0])
        prompt, chip = prompt_times(ten_home, workspace, chip=True)
        loaded.append(prompt)
        if chip is not None:
            chips.append(chip)
    print(f"\n== time to the interactive prompt (pseudo-terminal, median of {runs}) ==")
    print(f"  no servers configured            {ms(statistics.median(bare))}")
    print(f"  10 servers configured            {ms(statistics.median(loaded))}   (target < 500 ms)")
    if chips:
        print(
            f"  ... their summary line shown at  {ms(statistics.median(chips))}   (the servers up, after the prompt)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="3 runs each, for a smoke check")
    parser.add_argument("--runs", type=int, default=11)
    opts = parser.parse_args()
    runs = 3 if opts.quick else opts.runs
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    workspace = Path(tempfile.mkdtemp(prefix="levelcode-bench-workspace-"))
    report_mcp_list(runs, workspace)
    report_first_contact(runs, workspace)
    report_prompt(runs, workspace)


if __name__ == "__main__":
    main()
