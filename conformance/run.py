"""Run the official MCP conformance suite's client scenarios against conformance/client.py.

    uv run python conformance/run.py [--jobs N] [--suite DIR] [SCENARIO ...]

Runs every client scenario of the pinned suite tagged 2025-03-26, 2025-11-25 or 2026-07-28, each at
the version the suite picks (the client negotiates on its own), plus those tagged with both current
revisions once more at 2025-11-25 (its stateful wire), plus the auth extension scenarios (client
credentials, DPoP, enterprise-managed authorization, workload identity). `--extensions` runs every
extension scenario instead, the skills extension (SEP-2640) included, which LevelCode does not
implement: those are shown as not run, outside the exit status. Prints one line per run and the
total time, and compares the runs that did not pass with conformance/baseline.json (each entry
gives its reason); exit 1 when they differ. A run whose checks were all skipped (the suite's
"Passed: 0/0") is NOT RUN, never a pass. The suite needs Node 22, pinned in package.json as a
package with its binary.

`--suite DIR` runs another release of the suite instead of the pinned one: DIR is a folder where it
was installed (`npm install @modelcontextprotocol/conformance@0.1.16` there), or the package's own
folder. Its scenarios are planned the same way, and compared with the same baseline.
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
# The suite's previous line (0.1.16), pinned beside it under another name: its 2025-03-26
# scenarios serve what servers of that revision still serve (an issuer at a path, say).
PREVIOUS_SUITE = ROOT / "node_modules" / "conformance-0.1"
CLIENT = ROOT / "conformance" / "client.py"
BASELINE = ROOT / "conformance" / "baseline.json"
REVISIONS = ("2025-11-25", "2026-07-28")
OLDER_REVISIONS = ("2025-03-26",)  # run once each, at the version the suite picks
# Extension scenarios LevelCode does not implement: --extensions runs and shows them, never counts them.
UNIMPLEMENTED_EXTENSIONS = ("sep-2640-",)  # skills: LevelCode has no skills feature to test
_PASSED_LINE = re.compile(r"^Passed: (\d+)/(\d+)")
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
    verdict: str  # "pass", "FAIL" or "NOT RUN" (no check was executed)
    seconds: float
    summary: str
    detail: str = ""  # the end of the suite's output, for a run that did not pass

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def verdict_of(returncode: int | None, text: str) -> str:
    """A run passes only when the suite says so AND executed at least one check: a scenario whose
    every check was skipped reports "Passed: 0/0" and "OVERALL: PASSED", and proves nothing."""
    executed = next((int(m.group(2)) for line in text.splitlines() if (m := _PASSED_LINE.match(line))), None)
    if executed == 0:
        return "NOT RUN"
    return "pass" if returncode == 0 and "OVERALL: PASSED" in text and executed else "FAIL"


def suite_entry(folder: Path) -> Path:
    """The suite's entry point in `folder`: an install folder (its node_modules holds the package)
    or the package's own folder."""
    for package in (folder / "node_modules" / "@modelcontextprotocol" / "conformance", folder):
        entry = package / "dist" / "index.js"
        if (package / "package.json").is_file() and entry.is_file():
            return entry
    raise SystemExit(f"no conformance suite in {folder}: install it there with npm first")


def client_scenarios(suite: Path = SUITE) -> dict[str, tuple[str, ...]]:
    """Every client scenario of the installed suite, with its tags."""
    listed = subprocess.run(
        [str(NODE), str(suite), "list", "--client"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    found: dict[str, tuple[str, ...]] = {}
    for line in listed.splitlines():
        match = _LISTED.match(line)
        if match:
            found[match.group(1)] = tuple(tag.strip() for tag in match.group(2).split(","))
    return found


def planned_runs(scenarios: dict[str, tuple[str, ...]]) -> list[Run]:
    """What the test command runs: every revision's scenarios and the implemented extensions."""
    revisions = {*REVISIONS, *OLDER_REVISIONS}
    runs = [Run(name) for name, tags in scenarios.items() if set(tags) & revisions]
    runs.extend(Run(name, REVISIONS[0]) for name, tags in scenarios.items() if set(REVISIONS) <= set(tags))
    runs.extend(r for r in extension_runs(scenarios) if in_scope(r))
    return runs


def extension_runs(scenarios: dict[str, tuple[str, ...]]) -> list[Run]:
    """Every extension scenario: the auth ones (client credentials, DPoP, enterprise-managed
    authorization, workload identity) and the skills ones, which LevelCode does not implement."""
    return [Run(name) for name, tags in scenarios.items() if "extension" in tags]


def in_scope(run: Run) -> bool:
    """Whether LevelCode answers for the scenario: all but the extensions it does not implement."""
    return not run.scenario.startswith(UNIMPLEMENTED_EXTENSIONS)


async def run_one(run: Run, workdir: Path, suite: Path = SUITE) -> Outcome:
    command = [
        str(NODE),
        str(suite),
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
        return Outcome(run, "FAIL", time.monotonic() - began, f"no result within {SCENARIO_SECONDS} s")
    text = _ANSI.sub("", output.decode("utf-8", "replace"))
    verdict = verdict_of(process.returncode, text)
    summary = next((line.strip() for line in text.splitlines() if line.startswith("Passed: ")), "no summary")
    detail = "" if verdict == "pass" else "\n".join(line for line in text.splitlines()[-25:] if line.strip())
    return Outcome(run, verdict, time.monotonic() - began, summary, detail)


async def run_all(runs: list[Run], jobs: int, suite: Path = SUITE) -> list[Outcome]:
    limit = asyncio.Semaphore(jobs)
    with tempfile.TemporaryDirectory(prefix="levelcode-conformance-") as tmp:

        async def bounded(run: Run) -> Outcome:
            async with limit:
                workdir = Path(tmp) / run.label.replace("/", "_").replace("@", "_")
                workdir.mkdir()
                return await run_one(run, workdir, suite)

        return list(await asyncio.gather(*(bounded(run) for run in runs)))


def load_baseline() -> dict[str, str]:
    """The scenarios in scope that do not pass, each with its reason (none, today)."""
    doc = json.loads(BASELINE.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in doc.get("client", {}).items()}


def compare(outcomes: list[Outcome], baseline: dict[str, str]) -> list[str]:
    """What differs from the baseline: a new failure (a run that was not run included), or a
    baselined one that now passes. Runs outside LevelCode's scope are not compared."""
    counted = [o for o in outcomes if in_scope(o.run)]
    failing = {o.run.label for o in counted if not o.passed}
    ran = {o.run.label for o in counted}
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
    parser.add_argument(
        "--suite", type=Path, metavar="DIR", help="another release of the suite, installed in DIR"
    )
    parser.add_argument("only", nargs="*", help="run only these scenarios")
    args = parser.parse_args()
    suite = SUITE if args.suite is None else suite_entry(args.suite)
    plan = extension_runs if args.extensions else planned_runs
    runs = [r for r in plan(client_scenarios(suite)) if not args.only or r.scenario in args.only]
    began = time.monotonic()
    outcomes = asyncio.run(run_all(runs, args.jobs, suite))
    baseline = load_baseline()
    for outcome in sorted(outcomes, key=lambda o: o.run.label):
        print(
            f"{outcome.verdict:7}  {outcome.run.label:50} {outcome.seconds:5.1f} s  {outcome.summary}"
            + _reason(outcome, baseline)
        )
    print(f"{count_line(outcomes)} in {time.monotonic() - began:.0f} s ({args.jobs} at a time)")
    problems = compare(outcomes, baseline)
    for line in problems:
        print(f"baseline: {line}")
    for outcome in outcomes:
        if not outcome.passed and in_scope(outcome.run) and outcome.run.label not in baseline:
            print(f"\n--- {outcome.run.label}\n{outcome.detail}")
    return 1 if problems else 0


def count_line(outcomes: list[Outcome]) -> str:
    """ "N passed, N failed, N not run": a run with no executed check is never counted as passed."""
    seen = [o.verdict for o in outcomes]
    return f"{seen.count('pass')} passed, {seen.count('FAIL')} failed, {seen.count('NOT RUN')} not run"


def _reason(outcome: Outcome, baseline: dict[str, str]) -> str:
    if outcome.passed:
        return ""
    if not in_scope(outcome.run):
        return "  (outside LevelCode's scope: the skills extension, SEP-2640, is not implemented)"
    return f"  ({baseline.get(outcome.run.label, 'not in the baseline')})"


if __name__ == "__main__":
    sys.exit(main())
