"""The text of `levelcode mcp import`: the plan (what goes to which of the user's files, with exactly
what each server runs; what is left out and why) and what was written. Prints nothing itself; every
value from another tool's file is made safe for a terminal here.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from levelcode.cli.mcp.scope import ServersFile
from levelcode.mcp.config.import_plan import WHERE, Destination, ImportPlan
from levelcode.mcp.config.importers import Candidate, Elsewhere, Skipped
from levelcode.mcp.config.shown_values import shown_header
from levelcode.mcp.config.specs import HttpServerSpec
from levelcode.mcp.launch.plan import launch_text
from levelcode.platform.workspace_identity import describe_identity, workspace_identity
from levelcode.ui.visible import visible

REPO_MARK = "! written by the repository, not by you"
SCOPE_WORDS: dict[Destination, str] = {"user": "every workspace", "local": "only here"}
Targets = Mapping[Destination, ServersFile]


def written_lines(to: Destination, target: ServersFile, added: list[str], kept: list[str]) -> list[str]:
    """What one file was given, naming its scope; what was there by then, left alone."""
    lines = (
        [f"Left alone (in {WHERE[to]} by now): {', '.join(visible(name) for name in kept)}"] if kept else []
    )
    if added:
        names = ", ".join(visible(name) for name in added)
        lines.append(f"Added {servers_count(len(added))} to {_destination(to, target)}: {names}")
    return lines


def _destination(to: Destination, target: ServersFile) -> str:
    """`your settings (-s user, every workspace) in PATH`, as the summary names a file."""
    return f"{WHERE[to]} (-s {to}, {SCOPE_WORDS[to]}) in {target.path}"


def plan_lines(plan: ImportPlan, targets: Targets, workspace: Path) -> list[str]:
    """The plan as plain text: what is added where, with what it runs; what is left out and why."""
    sections: list[list[str]] = []
    for to in ("user", "local"):
        if plan.into(to):
            sections.append([_heading(to, targets[to], workspace)])
            sections[-1].extend(line for candidate in plan.into(to) for line in candidate_lines(candidate))
    if plan.held:
        sections.append(
            ["Left out, written by the repository, not by you (--include-repo imports them too):"]
        )
        sections[-1].extend(line for candidate in plan.held for line in candidate_lines(candidate))
    if plan.elsewhere:
        sections.append(["Not imported, added for another project (import them from that project's folder):"])
        sections[-1].extend(line for other in plan.elsewhere for line in elsewhere_lines(other))
    if plan.skipped:
        sections.append(["Skipped:"])
        sections[-1].extend(line for skipped in plan.skipped for line in skipped_lines(skipped))
    if plan.problems:
        sections.append(["Could not read:"])
        sections[-1].extend(f"  {visible(str(problem))}" for problem in plan.problems)
    return [line for section in sections for line in (*section, "")]


def _heading(to: Destination, target: ServersFile, workspace: Path) -> str:
    if to == "user":
        where = "in every workspace"
    else:
        where = f"only in {describe_identity(workspace_identity(workspace))}"
    return visible(
        f"To add to {WHERE[to]}, {target.path} (-s {to}: they will start without asking, {where}):"
    )


def candidate_lines(candidate: Candidate) -> list[str]:
    lines = [f"  {visible(candidate.name)} · from {visible(candidate.origin.describe())}"]
    if candidate.origin.repo_authored:
        lines.append(f"      {REPO_MARK}")
    lines.extend(f"      {visible(line)}" for line in launch_lines(candidate))
    lines.extend(f"      note: {visible(note)}" for note in candidate.notes)
    return lines


def launch_lines(candidate: Candidate) -> list[str]:
    """What would run, as written: the literal command line (or URL), then env, headers and cwd."""
    spec = candidate.spec
    if isinstance(spec, HttpServerSpec):
        return [f"url:    {launch_text(spec)}", *(f"header: {shown_header(k, v)}" for k, v in spec.headers)]
    lines = [f"runs:   {launch_text(spec)}", *(f"env:    {key}={value}" for key, value in spec.env)]
    return [*lines, f"cwd:    {spec.cwd}"] if spec.cwd else lines


def skipped_lines(skipped: Skipped) -> list[str]:
    return [
        f"  {visible(skipped.name)} · from {visible(skipped.origin.describe())}",
        f"      {visible(skipped.reason)}",
    ]


def elsewhere_lines(other: Elsewhere) -> list[str]:
    folder = other.origin.project or ""
    command = shlex.join(["levelcode", "mcp", "import", "-C", folder, "--from", other.origin.tool])
    return [
        f"  {visible(', '.join(other.names))} · from {visible(other.origin.describe())}",
        f"      to make them that project's own: {visible(command)}",
    ]


def servers_count(count: int) -> str:
    return f"{count} server{'' if count == 1 else 's'}"
