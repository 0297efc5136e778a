"""Start-up benchmark: what LevelCode costs before its servers are of use, each figure beside its
baseline in one run (interleaved, medians).

    uv run python bench/startup_bench.py [--quick] [--runs N] [--claude PATH] [--claude-version V]

1. `levelcode mcp list` against Claude Code's `claude mcp list`, both with one server-everything
   (node_modules) that each really starts: Claude Code gets it in its *user* scope
   (`claude mcp add -s user`, HOME a folder of the bench's own; a project `.mcp.json` would only be
   listed as pending approval), and every run of its list must say the server connected, every run
   of LevelCode's that it is running. Pairs interleaved, 15 by default, the order swapped every
   round; medians, the ratio of the medians and the median of the pairs' ratios. Target: LevelCode
   <= 0.90x Claude Code. `claude` is the one given, else the one on PATH, else `npm install`ed into a
   temporary folder (removed after); its version is printed. Beside them the floor: a stdlib-only
   Python client that spawns the same server, initializes, lists its tools, closes its stdin and
   waits for it to exit (target: LevelCode <= 1.10x the floor). For each: wall time, CPU (the
   command's and the server's it reaped: the floor's is nearly all the server's, so the difference
   is the client's), the command's own peak resident set and the largest in its tree (the server's
   when it is the larger). server-everything lingers ~370 ms after its stdin closes, which the
   floor waits out and LevelCode need not (it signals the group after a short grace), so LevelCode
   may come in under the floor, but never by leaving a process behind: every process that carries
   the run's HOME is counted the moment each command returns (target: none; Claude Code's too).
   The same three again with bench/echo_server.py, a stdlib server that exits the moment its stdin
   closes: what each client costs by itself, without the wait for a server that lingers.
2. Imports: `levelcode --version` and `levelcode mcp list` under `python -X importtime`: the self
   time summed, the 25 modules that cost most (cumulative), and the packages that cost most with
   the LevelCode module that first brought each in.
3. Cold against warm first contact: `levelcode mcp list` with every local server configured,
   once with no protocol memory (state removed before each run) and once with it. Target: cold
   <= 1.15x warm.
4. Time to the interactive prompt with 10 servers configured, in a real pseudo-terminal, beside
   the same with none, and when the 10 servers' summary line appears (their start overlaps the
   prompt). The prompt counts once it is drawn, below its hint line. Target: < 0.5 s.

The machines are shared and noisy: the load average is printed before and after; read the
ratios, and run it twice before believing one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.claude_code import (  # noqa: E402
    ClaudeCode,
    ClaudeCodeMissing,
    check_connected,
    environment,
    find_or_install,
    home_with_server,
)
from bench.import_profile import print_profile, profile, self_ms  # noqa: E402
from bench.measured_runs import Medians, Run, counting, interleaved, measured, ms, saying  # noqa: E402
from bench.repl_prompt import prompt_times  # noqa: E402

BIN = ROOT / "node_modules" / ".bin"
EVERYTHING = str(BIN / "mcp-server-everything")
LEVELCODE = str(Path(sys.executable).parent / "levelcode")
ECHO = [sys.executable, "-I", "-S", str(ROOT / "bench" / "echo_server.py")]
EVERYTHING_TITLE = "one server-everything, started; target levelcode <= 0.90x claude, <= 1.10x the floor"
ECHO_TITLE = "bench/echo_server.py, which exits as its stdin closes: the clients' own cost"
CLAUDE_MISSING = 3  # the exit status when there is no Claude Code to compare with

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


def report_mcp_list(
    runs: int, workspace: Path, claude: ClaudeCode | None, name: str, command: list[str], title: str
) -> dict[str, Medians]:
    """floor, `levelcode mcp list` and `claude mcp list` with the one stdio server `name`."""
    home = home_with({name: {"command": command[0], "args": command[1:]}})
    env = env_for(home)
    levelcode = [LEVELCODE, "mcp", "list"]
    measured(levelcode, env, workspace)  # the first contact: its era remembered
    leftovers: dict[str, list[int]] = {"levelcode": [], "claude": []}
    commands: dict[str, Callable[[], Run]] = {
        "floor": lambda: measured([sys.executable, "-c", FLOOR, *command], env, workspace),
        "levelcode": counting(
            leftovers["levelcode"],
            home,
            saying("- ● running · ", lambda: measured(levelcode, env, workspace)),  # its one server
        ),
    }
    if claude is not None:
        commands["claude"] = counting(leftovers["claude"], *claude_list(claude, workspace, name, command))
    results = interleaved(runs, **commands)
    medians = {command: Medians.of(values) for command, values in results.items()}
    floor, ours = medians["floor"], medians["levelcode"]
    print(f"\n== mcp list, {title} (median of {runs}, interleaved) ==")
    print(f"  {'':50} {'wall':>10} {'CPU+server':>10} {'own peak':>10} {'tree peak':>10}")
    print(floor.row("floor (stdlib client: spawn, list, close, wait)"))
    print(ours.row("levelcode mcp list", f"{ours.wall / floor.wall:5.2f}x the floor"))
    if claude is not None:
        theirs = medians["claude"]
        paired = statistics.median(
            a.wall / b.wall for a, b in zip(results["levelcode"], results["claude"], strict=True)
        )
        print(
            theirs.row(
                f"claude mcp list (Claude Code {claude.version})",
                f"{theirs.wall / floor.wall:5.2f}x the floor",
            )
        )
        print(
            f"  levelcode / claude: {ours.wall / theirs.wall:5.2f}x (medians), {paired:5.2f}x (median of the "
            f"{runs} pairs)"
        )
    said = ", ".join(f"{who} {sum(counts)}" for who, counts in leftovers.items() if who in commands)
    print(f"  processes left behind when each returned, over {runs} runs: {said}  (target 0)")
    return medians


def claude_list(
    claude: ClaudeCode, workspace: Path, name: str, command: list[str]
) -> tuple[Path, Callable[[], Run]]:
    """Claude Code's HOME with the server in its user scope, and its `mcp list` there, each run
    checked to have connected; run once first, as LevelCode's, so no run is its first start."""
    home = home_with_server(claude, name, command, workspace)
    env = environment(home)

    def listed() -> Run:
        result = measured([claude.path, "mcp", "list"], env, workspace)
        check_connected(result.output, name)
        return result

    listed()
    return home, listed


def report_first_contact(runs: int, workspace: Path) -> None:
    servers = local_servers()
    home = home_with(servers)
    env = env_for(home)
    memory = home / "state" / "protocols.json"
    levelcode = [LEVELCODE, "mcp", "list"]
    measured(levelcode, env, workspace)
    forget: Callable[[], None] = lambda: memory.unlink(missing_ok=True)  # noqa: E731
    leftovers: list[int] = []
    results = interleaved(
        runs,
        cold=counting(leftovers, home, lambda: measured(levelcode, env, workspace, forget)),
        warm=counting(leftovers, home, lambda: measured(levelcode, env, workspace)),
    )
    cold, warm = Medians.of(results["cold"]), Medians.of(results["warm"])
    print(f"\n== first contact: mcp list of {len(servers)} servers ({', '.join(servers)}) ==")
    print(f"  warm (protocol era remembered)   {ms(warm.wall)}")
    print(
        f"  cold (nothing remembered)        {ms(cold.wall)}   {cold.wall / warm.wall:5.2f}x warm  (target <= 1.15x)"
    )
    starts = (home / "state" / "logs" / "everything.log").read_text().count(" starting ")
    print(f"  server-everything processes started over {2 * runs + 1} lists: {starts}")
    print(f"  processes left behind when it returned, over {2 * runs} lists: {sum(leftovers)}  (target 0)")


def report_prompt(runs: int, workspace: Path) -> float:
    local = local_servers()
    names = list(local)
    ten = {f"{names[i % len(names)]}-{i}": local[names[i % len(names)]] for i in range(10)}
    none_home, ten_home = home_with({}), home_with(ten)
    repl = [LEVELCODE, "--provider", "anthropic"]
    extra = {"ANTHROPIC_API_KEY": "bench-key-not-used", "TERM": "xterm", "COLUMNS": "200"}
    bare_env, ten_env = {**env_for(none_home), **extra}, {**env_for(ten_home), **extra}
    prompt_times(repl, ten_env, workspace, summary=True)  # the first contact of each, remembered
    bare, loaded, summaries = [], [], []
    for _ in range(runs):
        bare.append(prompt_times(repl, bare_env, workspace, summary=False)[0])
        prompt, summary = prompt_times(repl, ten_env, workspace, summary=True)
        loaded.append(prompt)
        if summary is not None:
            summaries.append(summary)
    print(f"\n== time to the interactive prompt (pseudo-terminal, median of {runs}) ==")
    print(f"  no servers configured            {ms(statistics.median(bare))}")
    print(f"  10 servers configured            {ms(statistics.median(loaded))}   (target < 500 ms)")
    if summaries:
        print(
            f"  ... their summary line shown at  {ms(statistics.median(summaries))}   (the servers up, after the prompt)"
        )
    return statistics.median(loaded)


def report_imports(runs: int, workspace: Path) -> dict[str, float]:
    env = env_for(home_with({"everything": {"command": EVERYTHING}}))
    summed = {}
    for words in (["--version"], ["mcp", "list"]):
        imported = profile([sys.executable, LEVELCODE, *words], env, workspace, runs)
        summed[" ".join(words)] = self_ms(imported)
        print_profile(f"levelcode {' '.join(words)}", imported)
    return summed


def print_summary(
    lists: dict[str, Medians], echo: dict[str, Medians], prompt: float, imports: dict[str, float]
) -> None:
    print("\n== in short ==")
    for server, medians in (("server-everything", lists), ("the echo server", echo)):
        ours = medians["levelcode"]
        line = f"  {server:18} levelcode mcp list {ms(ours.wall)} ({ours.own_peak_mib:.0f} MiB)"
        if "claude" in medians:
            theirs = medians["claude"]
            line += (
                f", claude {ms(theirs.wall)} ({theirs.own_peak_mib:.0f} MiB): {ours.wall / theirs.wall:.2f}x"
            )
        print(line + ("  (target <= 0.90x)" if medians is lists else ""))
    print(f"  prompt with 10 servers {ms(prompt)} (target < 500 ms)")
    print(
        "  imports, self time summed: " + ", ".join(f"levelcode {k} {v:.0f} ms" for k, v in imports.items())
    )


def load() -> str:
    return "load average " + " ".join(f"{figure:.2f}" for figure in os.getloadavg())


def versions(claude: ClaudeCode | None) -> str:
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    levelcode = measured([LEVELCODE, "--version"], os.environ, ROOT).output.strip()
    said = f"{levelcode}, python {sys.version.split()[0]}, node {node}, {os.cpu_count()} cpus"
    if claude is None:
        return f"{said}; no Claude Code (--no-claude)"
    return f"{said}; Claude Code {claude.version} ({claude.source}: {claude.path})"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 runs each, 1 import profile, for a smoke check"
    )
    parser.add_argument("--runs", type=int, default=15, help="rounds of each comparison (default 15)")
    parser.add_argument(
        "--claude", metavar="PATH", help="the `claude` to compare with (default: on PATH, else installed)"
    )
    parser.add_argument(
        "--claude-version", default="latest", help="the npm version to install when none is found"
    )
    parser.add_argument("--no-claude", action="store_true", help="leave Claude Code out (no comparison)")
    opts = parser.parse_args()
    runs = 3 if opts.quick else opts.runs
    with tempfile.TemporaryDirectory(prefix="levelcode-bench-") as scratch:
        tempfile.tempdir = scratch  # every folder the bench makes (homes, Claude Code) goes, at the end
        try:
            claude = (
                None if opts.no_claude else find_or_install(opts.claude, Path(scratch), opts.claude_version)
            )
        except ClaudeCodeMissing as exc:
            print(f"startup_bench: no Claude Code to compare with: {exc}", file=sys.stderr)
            return CLAUDE_MISSING
        print(f"{versions(claude)}\n{load()} (before)")
        workspace = Path(tempfile.mkdtemp(prefix="workspace-"))
        lists = report_mcp_list(runs, workspace, claude, "everything", [EVERYTHING], EVERYTHING_TITLE)
        echo = report_mcp_list(runs, workspace, claude, "echo", ECHO, ECHO_TITLE)
        imports = report_imports(1 if opts.quick else 5, workspace)
        report_first_contact(runs, workspace)
        prompt = report_prompt(runs, workspace)
        print_summary(lists, echo, prompt, imports)
        print(f"{load()} (after)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
