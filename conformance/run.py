"""Run the official MCP conformance suite's client scenarios against conformance/client.py.

    uv run python conformance/run.py [--jobs N] [SCENARIO ...]

Runs every client scenario of the pinned suite tagged 2025-11-25 or 2026-07-28, each at the
version the suite picks (the client negotiates on its own), plus those tagged with both revisions
once more at 2025-11-25 (its stateful wire). `--extensions` runs the extension scenarios instead,
against their own section of the baseline. Prints one line per run and the total time, and compares
the runs that did not pass with conformance/baseline.json (each entry gives its reason); exit 1
when they differ. The suite needs Node 22, pinned in package.json as a package with its binary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules" / ".bin" / "node"
SUITE = ROOT / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = ROOT / "conformance" / "client.py"
BASELINE = ROOT / "conformance" / "baseline.json"
REVISIONS = ("2025-11-25", "2026-07-28")
SCENARIO_SECONDS = 60
_LISTED = re.compile(r"^\s+- (\S+) \[([^\]]*)\]$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Run:
    scenario: str
    version: str | None = None  # None: the version the suite picks

    @property
    def label(self) -> str:
        return self.scenario if self.version is None else f"{self.scenario}@{self.version}"


@dataclass(frozen=True)
class Outcome:
    run: Run
    passed: bool
    seconds: float
    summary: str
    detail: str = ""  # the end of the suite's output, for a run that did not pass


def client_scenarios() -> dict[str, tuple[str, ...]]:
    """Every client scenario of the installed suite, with its tags."""
    listed = subprocess.run(
        [str(NODE), str(SUITE), "list", "--client"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    found: dict[str, tuple[str, ...]] = {}
    for line in listed.splitlines():
        match = _LISTED.match(line)
        if match:
            found[match.group(1)] = tuple(tag.strip() for tag in match.group(2).split(","))
    return found


def planned_runs(scenarios: dict[str, tuple[str, ...]]) -> list[Run]:
    runs = [Run(name) for name, tags in scenarios.items() if set(tags) & set(REVISIONS)]
    runs.extend(Run(name, REVISIONS[0]) for name, tags in scenarios.items() if set(REVISIONS) <= set(tags))
    return runs


def extension_runs(scenarios: dict[str, tuple[str, ...]]) -> list[Run]:
    """The extension scenarios (client credentials, DPoP, enterprise-managed authorization, workload
    identity, skills): outside the revisions' requirements; the test command does not run them."""
    return [Run(name) for name, tags in scenarios.items() if "extension" in tags]


async def run_one(run: Run, workdir: Path) -> Outcome:
    command = [
        str(NODE),
        str(SUITE),
        "client",
        "--command",
        f"{sys.executable} {CLIENT}",
        "--scenario",
        run.scenario,
    ]
    if run.version is not None:
        command += ["--spec-version", run.version]
    began = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *command, cwd=workdir, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), SCENARIO_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        return Outcome(run, False, time.monotonic() - began, f"no result within {SCENARIO_SECONDS} s")
    text = _ANSI.sub("", output.decode("utf-8", "replace"))
    passed = process.returncode == 0 and "OVERALL: PASSED" in text
    summary = next((line.strip() for line in text.splitlines() if line.startswith("Passed: ")), "no summary")
    detail = "" if passed else "\n".join(line for line in text.splitlines()[-25:] if line.strip())
    return Outcome(run, passed, time.monotonic() - began, summary, detail)


async def run_all(runs: list[Run], jobs: int) -> list[Outcome]:
    limit = asyncio.Semaphore(jobs)
    with tempfile.TemporaryDirectory(prefix="levelcode-conformance-") as tmp:

        async def bounded(run: Run) -> Outcome:
            async with limit:
                workdir = Path(tmp) / run.label.replace("/", "_").replace("@", "_")
                workdir.mkdir()
                return await run_one(run, workdir)

        return list(await asyncio.gather(*(bounded(run) for run in runs)))


def load_baseline(section: str = "client") -> dict[str, str]:
    """`client`: the 2025-11-25/2026-07-28 scenarios that do not pass; `extensions`: likewise."""
    doc = json.loads(BASELINE.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in doc.get(section, {}).items()}


def compare(outcomes: list[Outcome], baseline: dict[str, str]) -> list[str]:
    """What differs from the baseline: a new failure, or a baselined one that now passes."""
    failing = {o.run.label for o in outcomes if not o.passed}
    ran = {o.run.label for o in outcomes}
    problems = [f"{label}: fails and is not in the baseline" for label in sorted(failing - set(baseline))]
    problems += [
        f"{label}: passes now; remove it from the baseline"
        for label in sorted((set(baseline) & ran) - failing)
    ]
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--extensions", action="store_true", help="run the extension scenarios instead")
    parser.add_argument("only", nargs="*", help="run only these scenarios")
    args = parser.parse_args()
    plan = extension_runs if args.extensions else planned_runs
    runs = [r for r in plan(client_scenarios()) if not args.only or r.scenario in args.only]
    began = time.monotonic()
    outcomes = asyncio.run(run_all(runs, args.jobs))
    baseline = load_baseline("extensions" if args.extensions else "client")
    for outcome in sorted(outcomes, key=lambda o: o.run.label):
        verdict = "pass" if outcome.passed else "FAIL"
        reason = "" if outcome.passed else f"  ({baseline.get(outcome.run.label, 'not in the baseline')})"
        print(f"{verdict}  {outcome.run.label:50} {outcome.seconds:5.1f} s  {outcome.summary}{reason}")
    passed = sum(o.passed for o in outcomes)
    print(
        f"{passed} passed, {len(outcomes) - passed} failed "
        f"in {time.monotonic() - began:.0f} s ({args.jobs} at a time)"
    )
    problems = compare(outcomes, baseline)
    for line in problems:
        print(f"baseline: {line}")
    for outcome in outcomes:
        if not outcome.passed and outcome.run.label not in baseline:
            print(f"\n--- {outcome.run.label}\n{outcome.detail}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
