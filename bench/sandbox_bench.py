"""Sandbox benchmark: what confining a command costs, per command, as the agent runs it.

    uv run python bench/sandbox_bench.py [--rounds N]

Runs `true`, `git status` (in a small repository) and `python3 -c pass` through the same spawn
path as run_command (ShellProcess, `bash -c`), confined (policy surveyed for each command, as
run_command does, then bwrap, then the check for git control entries it planted) and
unconfined, interleaved in one run in a shuffled order per round. Prints medians, the ratio
confined/unconfined and the added milliseconds, plus the survey's and the check's own medians.
`--files N` adds N files (in folders of 50, like a dependency tree) to the repository, untracked
and ignored, to show what the scans cost in a bigger workspace. Then the same for an MCP server's start (spawn, handshake and the first
tools/list of tests/servers/fault_server.py, through LevelCode's connect), with and without a
`"sandbox"` entry. Machines here are shared and noisy: compare ratios, run it twice.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from levelcode.mcp.config.sandbox_entry import SandboxRequest  # noqa: E402
from levelcode.mcp.config.specs import Provenance, StdioServerSpec  # noqa: E402
from levelcode.mcp.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.connection import connect  # noqa: E402
from levelcode.sandbox.confinement import Confinement, Wrap, current_confinement  # noqa: E402

try:  # absent before the check existed: the bench also runs against older trees, for comparison
    from levelcode.sandbox.confinement import planted_git_control
except ImportError:
    planted_git_control = None  # type: ignore[assignment]
from levelcode.tools.process_group import ShellProcess  # noqa: E402

COMMANDS = {"true": "true", "git status": "git status --short", "python -c pass": "python3 -c pass"}


def small_repository(root: Path, files: int = 0) -> Path:
    repo = root / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(50):
        (repo / "src" / f"m{i}.py").write_text(f"VALUE = {i}\n")
    for i in range(files):
        folder = repo / "node_modules" / f"p{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.js").write_text("")
    (repo / ".gitignore").write_text("node_modules/\n")
    for args in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    return repo


async def timed(command: str, workspace: Path, confinement: Confinement | None) -> float:
    started = time.perf_counter()
    wrap: Wrap | None = None
    policy = None
    if confinement is not None:
        policy = confinement.policy_for(workspace)
        wrap = confinement.wrap(policy)
    process = await ShellProcess.start(command, workspace, lambda _chunk: None, wrap=wrap)
    try:
        await process.wait(60)
    finally:
        await process.stop()
    if policy is not None and planted_git_control is not None:
        planted_git_control(policy)
    if process.returncode != 0:
        raise SystemExit(f"{command!r} failed ({'confined' if confinement else 'unconfined'})")
    return (time.perf_counter() - started) * 1000


async def measure(
    rounds: int, workspace: Path, confinement: Confinement
) -> dict[tuple[str, bool], list[float]]:
    runs: dict[tuple[str, bool], list[float]] = {(name, c): [] for name in COMMANDS for c in (False, True)}
    for command in COMMANDS.values():  # warm caches once, untimed
        for confined in (False, True):
            await timed(command, workspace, confinement if confined else None)
    for _ in range(rounds):
        order = list(runs)
        random.shuffle(order)
        for name, confined in order:
            runs[name, confined].append(
                await timed(COMMANDS[name], workspace, confinement if confined else None)
            )
    return runs


SERVER = StdioServerSpec(
    "bench", sys.executable, Provenance("user", "bench"), args=(str(ROOT / "tests/servers/fault_server.py"),)
)


async def server_start(options: ConnectOptions, confined: bool) -> float:
    spec = dataclasses.replace(SERVER, sandbox=SandboxRequest() if confined else None)
    started = time.perf_counter()
    connection = await connect(spec, options, hint="legacy")
    elapsed = (time.perf_counter() - started) * 1000
    await connection.close()
    return elapsed


async def measure_servers(rounds: int, workspace: Path) -> dict[bool, list[float]]:
    options = ConnectOptions(workspace=workspace, servers_dir=workspace.parent / "servers")
    runs: dict[bool, list[float]] = {False: [], True: []}
    for confined in (False, True):  # warm up, untimed
        await server_start(options, confined)
    for _ in range(rounds):
        for confined in random.sample([False, True], 2):
            runs[confined].append(await server_start(options, confined))
    return runs


def survey_medians(confinement: Confinement, workspace: Path, rounds: int) -> tuple[float, float | None]:
    """The policy survey's median, and the after-check's (None where there is none)."""
    surveys, checks = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        policy = confinement.policy_for(workspace)
        surveys.append((time.perf_counter() - started) * 1000)
        if planted_git_control is not None:
            started = time.perf_counter()
            planted_git_control(policy)
            checks.append((time.perf_counter() - started) * 1000)
    return statistics.median(surveys), statistics.median(checks) if checks else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--server-rounds", type=int, default=15)
    parser.add_argument("--files", type=int, default=0, help="extra untracked files in the repository")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as scratch:
        os.environ["LEVELCODE_HOME"] = str(Path(scratch) / "levelcode-home")  # its cache folder goes here
        confinement = current_confinement(network=False)
        if not confinement.available:
            print(f"no sandbox on this machine: {confinement.reason}")
            return 2
        workspace = small_repository(Path(scratch), args.files)
        runs = asyncio.run(measure(args.rounds, workspace, confinement))
        survey, check = survey_medians(confinement, workspace, args.rounds)
        servers = asyncio.run(measure_servers(args.server_rounds, workspace))
    print(f"per-command cost, median of {args.rounds} interleaved runs (ms), spawn path of run_command")
    print(f"{'command':<16}{'unconfined':>12}{'confined':>12}{'ratio':>8}{'added':>9}")
    for name in COMMANDS:
        plain, boxed = statistics.median(runs[name, False]), statistics.median(runs[name, True])
        print(f"{name:<16}{plain:>12.1f}{boxed:>12.1f}{boxed / plain:>7.2f}x{boxed - plain:>+8.1f}")
    print(f"policy survey alone (per command): {survey:.2f} ms median")
    if check is not None:
        print(f"check for planted git control entries (per command): {check:.2f} ms median")
    plain, boxed = statistics.median(servers[False]), statistics.median(servers[True])
    print(f"MCP server start to its tool list, median of {args.server_rounds} interleaved runs (ms)")
    print(f"{'fault server':<16}{plain:>12.1f}{boxed:>12.1f}{boxed / plain:>7.2f}x{boxed - plain:>+8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
