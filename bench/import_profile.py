"""What a command spends on imports, from `python -X importtime`: the summed self time, the modules
by cumulative time, and the time by package with the LevelCode module that first brought each in
(where to cut). Reads the report only; never imports what it measures.
"""

from __future__ import annotations

import re
import statistics
import subprocess
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROW = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")


@dataclass(frozen=True)
class Imported:
    name: str
    self_us: int
    cumulative_us: int
    parent: str | None  # the module whose import ran this one; None at the top


def parse(report: str) -> list[Imported]:
    """The rows of an importtime report. A module is printed after those it imported, one level
    deeper, so a row's parent is the first row after it one level up."""
    rows = [(int(m[1]), int(m[2]), len(m[3]) // 2, m[4]) for m in map(ROW.match, report.splitlines()) if m]
    parents: list[str | None] = [None] * len(rows)
    waiting: dict[int, list[int]] = {}
    for index, (_, _, depth, name) in enumerate(rows):
        for child in waiting.pop(depth + 1, []):
            parents[child] = name
        waiting.setdefault(depth, []).append(index)
    return [Imported(name, own, total, parents[i]) for i, (own, total, _, name) in enumerate(rows)]


def self_ms(imported: Sequence[Imported]) -> float:
    return sum(module.self_us for module in imported) / 1000


def profile(argv: Sequence[str], env: Mapping[str, str], cwd: Path, runs: int) -> list[Imported]:
    """`argv` (a Python command) run `runs` times under -X importtime; each module's self and
    cumulative time the median of its runs (the machine is noisy; one run is one sample)."""
    samples = []
    for _ in range(runs):
        done = subprocess.run(
            [argv[0], "-X", "importtime", *argv[1:]],
            env=dict(env),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        samples.append(parse(done.stderr))
    return median_of(samples)


def median_of(samples: Sequence[Sequence[Imported]]) -> list[Imported]:
    """The modules of the first sample, each with the median of its times over the samples that
    imported it (a command imports the same modules each run, but for a rare lazy one)."""
    times: dict[str, list[tuple[int, int]]] = {}
    for sample in samples:
        for module in sample:
            times.setdefault(module.name, []).append((module.self_us, module.cumulative_us))
    return [
        Imported(
            module.name,
            int(statistics.median(own for own, _ in times[module.name])),
            int(statistics.median(total for _, total in times[module.name])),
            module.parent,
        )
        for module in samples[0]
    ]


def package_of(name: str) -> str:
    """A third-party or standard module's top package; a LevelCode module's subpackage (three
    levels: `levelcode.mcp.http`), the unit one lazy import can leave out."""
    parts = name.split(".")
    return ".".join(parts[:3]) if parts[0] == "levelcode" else parts[0]


def by_package(imported: Sequence[Imported]) -> list[tuple[str, float, str]]:
    """(package, self ms summed, the first LevelCode module whose import brought it in), costliest
    first."""
    spent: Counter[str] = Counter()
    brought_by: dict[str, str] = {}
    parent_of = {module.name: module.parent for module in imported}
    for module in imported:
        package = package_of(module.name)
        spent[package] += module.self_us
        brought_by.setdefault(package, _levelcode_importer(module.name, package, parent_of))
    return [(package, us / 1000, brought_by[package]) for package, us in spent.most_common()]


def _levelcode_importer(name: str, package: str, parent_of: Mapping[str, str | None]) -> str:
    """The nearest LevelCode module outside `package` above `name`; else the top of its chain, which
    a function imported as it ran (importtime shows no caller for that) or the interpreter did."""
    current, top = parent_of.get(name), name
    while current is not None:
        if current.startswith("levelcode") and package_of(current) != package:
            return current
        current, top = parent_of.get(current), current
    return f"{top} (top level)"


def print_profile(title: str, imported: Sequence[Imported], top: int = 25, packages: int = 20) -> None:
    print(f"\n== imports of `{title}` (python -X importtime, each module the median of its runs) ==")
    print(f"  {len(imported)} modules, self time summed {self_ms(imported):6.1f} ms")
    print(f"  top {top} modules by cumulative time:")
    for module in sorted(imported, key=lambda m: -m.cumulative_us)[:top]:
        via = f"  (imported by {module.parent})" if module.parent else ""
        print(
            f"    {module.cumulative_us / 1000:7.1f} ms  {module.self_us / 1000:6.1f} self  {module.name}{via}"
        )
    print(f"  top {packages} packages by self time summed, and the LevelCode module that first brought each")
    print("  in ('top level': a module imported inside a function as it ran, or by the interpreter):")
    for package, spent, importer in by_package(imported)[:packages]:
        print(f"    {spent:7.1f} ms  {package:36}  {importer}")
