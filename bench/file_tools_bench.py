"""File tools benchmark: what opening beneath the root costs per call, against an older tree.

    uv run python bench/file_tools_bench.py [--rounds N] [--baseline TREE]

Times the built-in file tools as the agent calls them (read_file of a file three folders down,
write_file over an existing file, edit_file, list_directory, search_files over 2,000 files in
folders of 50, `@path`), in a fresh workspace, each call a round, the tools in a shuffled order per
round. Runs once for this tree with the kernel's openat2 and once with the walk one name at a time
forced (what a kernel without openat2 gets), and, with `--baseline TREE` (e.g. a checkout of the
code before the change), once for that tree: each in its own process, importing its own
`levelcode`. Prints medians in microseconds and the ratio to the baseline. Machines here are
shared and noisy: compare ratios, run it twice. A baseline from git, without touching any checkout:
`mkdir -p ../old && git archive COMMIT levelcode | tar -x -C ../old`, then `--baseline ../old`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEARCH_FILES = 2000


def _workspace(root: Path) -> Path:
    workspace = root / "ws"
    deep = workspace / "src" / "pkg" / "mod"
    deep.mkdir(parents=True)
    (deep / "file.py").write_text("".join(f"line {n} = {n}\n" for n in range(200)))
    for n in range(SEARCH_FILES):
        folder = workspace / "tree" / f"d{n // 50:03}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n:04}.txt").write_text(f"text {n}\nneedle {n % 7}\n")
    return workspace


def _calls(workspace: Path) -> dict[str, Callable[[int], Awaitable[object]]]:
    from levelcode.tools.base import ToolContext
    from levelcode.tools.file_edit import edit_file, write_file
    from levelcode.tools.file_mentions import attach_path
    from levelcode.tools.file_read import list_directory, read_file
    from levelcode.tools.file_search import search_files

    ctx = ToolContext(workspace=workspace)
    file = "src/pkg/mod/file.py"

    async def mention(n: int) -> object:
        return attach_path(ctx, file)

    async def edit(n: int) -> object:
        old, new = ("line 7 =", "LINE 7 =") if n % 2 == 0 else ("LINE 7 =", "line 7 =")
        return await edit_file(ctx, {"path": file, "old_string": old, "new_string": new})

    return {
        "read_file": lambda n: read_file(ctx, {"path": file, "end_line": 50}),
        "write_file": lambda n: write_file(ctx, {"path": "src/pkg/mod/out.txt", "content": f"{n}\n" * 100}),
        "edit_file": edit,
        "list_directory": lambda n: list_directory(ctx, {"path": "tree/d000"}),
        "search_files": lambda n: search_files(
            ctx, {"pattern": "needle 3", "path": "tree", "max_results": 10}
        ),
        "@path": mention,
    }


async def _measure(rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        calls = _calls(_workspace(Path(scratch)))
        times: dict[str, list[float]] = {name: [] for name in calls}
        for n in range(rounds):
            order = list(calls)
            random.shuffle(order)
            for name in order:
                start = time.perf_counter()
                await calls[name](n)
                times[name].append((time.perf_counter() - start) * 1e6)
    return {name: statistics.median(values) for name, values in times.items()}


def _child(tree: Path, rounds: int, *, walk: bool) -> dict[str, float]:
    script = (
        "import asyncio, json, sys\n"
        f"sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(ROOT / 'bench')!r})\n"
        "import file_tools_bench as bench\n"
        + (
            "from levelcode.platform import open_beneath\nopen_beneath.kernel_resolution = lambda: None\n"
            if walk
            else ""
        )
        + f"print(json.dumps(asyncio.run(bench._measure({rounds}))))\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # leaves the other checkout as it was
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with (its levelcode/)")
    args = parser.parse_args()
    runs = {"openat2": _child(ROOT, args.rounds, walk=False), "walk": _child(ROOT, args.rounds, walk=True)}
    if args.baseline is not None:
        runs["baseline"] = _child(args.baseline, args.rounds, walk=False)
    base = runs.get("baseline")
    print(f"medians of {args.rounds} calls, microseconds" + (f" (baseline: {args.baseline})" if base else ""))
    print(
        f"{'tool':<16}"
        + "".join(f"{name:>12}" for name in runs)
        + ("   openat2/base  walk/base" if base else "")
    )
    for tool in runs["openat2"]:
        row = f"{tool:<16}" + "".join(f"{runs[name][tool]:>12.0f}" for name in runs)
        if base:
            row += f"   {runs['openat2'][tool] / base[tool]:>12.2f}  {runs['walk'][tool] / base[tool]:>9.2f}"
        print(row)


if __name__ == "__main__":
    main()
