"""`levelcode mcp import`: bring in the MCP servers you set up for Claude Desktop, Claude Code, Cursor
or VS Code, into your own settings.json (the user tier), after showing exactly what each one runs.

Reads the other tools' files and never writes them; writes only your settings.json, atomically and
only when told to: --yes, or y then Ctrl-Y pressed once the question is drawn (never type-ahead).
Imported servers start without asking, so servers a repository's files define are left out unless
--include-repo says otherwise.
"""

from __future__ import annotations

import argparse
import os
import shlex
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.cli.printing import workspace_of
from levelcode.core.errors import ConfigError, ConfigProblem
from levelcode.core.json_text import parse_json_text
from levelcode.mcp.config.import_tools import TOOL_LABELS, TOOLS, Tool
from levelcode.mcp.config.importers import (
    Candidate,
    ImportPlan,
    SearchRoots,
    Skipped,
    SourceFile,
    SourceReading,
    add_to_settings,
    plan_import,
    read_source,
    source_files,
)
from levelcode.mcp.config.shown_values import shown_header
from levelcode.mcp.config.specs import SERVERS_KEY, HttpServerSpec
from levelcode.mcp.launch.plan import launch_text
from levelcode.platform import paths
from levelcode.platform.json_store import NOT_OVERWRITTEN, JsonDoc, UnreadableFile, read_json_object
from levelcode.platform.settings_store import update_user_settings
from levelcode.ui.visible import visible

MAX_SOURCE_BYTES = 128 * 1024 * 1024  # ~/.claude.json keeps growing with use
MAX_REPO_SOURCE_BYTES = 4 * 1024 * 1024  # a repository's config file has no reason to be large
REPO_MARK = "! written by the repository, not by you"
ADD_LABEL = "add them to your settings"
KEPT_REASON = "written to your settings: LevelCode starts them without asking, in every workspace"


@dataclass(frozen=True)
class ImportOptions:
    tools: tuple[Tool, ...] = TOOLS
    yes: bool = False
    dry_run: bool = False
    include_repo: bool = False
    rerun: str = "levelcode mcp import"  # the command line that repeats this run, for hints


Confirm = Callable[[str], bool]


def run_import_command(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    options = ImportOptions(
        tools=tuple(dict.fromkeys(getattr(args, "sources", None) or TOOLS)),
        yes=bool(getattr(args, "yes", False)),
        dry_run=bool(getattr(args, "dry_run", False)),
        include_repo=bool(getattr(args, "include_repo", False)),
        rerun=_rerun_command(args),
    )
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    return import_servers(
        options, machine_roots(workspace), paths.user_settings_path(), confirm=ask if interactive else None
    )


def run_claude_desktop_import(args: argparse.Namespace) -> int:
    """`mcp add-from-claude-desktop` (Claude Code's name): `mcp import --from claude-desktop`."""
    if args.scope == "project":
        print(
            "levelcode: add-from-claude-desktop writes your own settings (-s user); for a repository's "
            "server: levelcode mcp add -s project NAME -- COMMAND [ARGS...]",
            file=sys.stderr,
        )
        return 2
    args.sources = ["claude-desktop"]
    return run_import_command(args)


def machine_roots(workspace: Path) -> SearchRoots:
    """This machine's home, platform and config dirs: where the other tools keep their files."""
    config_home = os.environ.get("XDG_CONFIG_HOME")
    appdata = os.environ.get("APPDATA")
    return SearchRoots(
        home=Path.home(),
        workspace=workspace,
        platform=sys.platform,
        config_home=Path(config_home) if config_home else None,
        appdata=Path(appdata) if appdata else None,
    )


def import_servers(
    options: ImportOptions, roots: SearchRoots, settings_path: Path, *, confirm: Confirm | None
) -> int:
    """Show the plan; write it when --yes or the user says yes. `confirm` is None without a terminal."""
    try:
        existing = current_servers(settings_path)
    except ConfigError as exc:
        print(f"levelcode: {exc}", file=sys.stderr)
        return 1
    sources = source_files(roots, options.tools)
    readings = read_sources(sources, project_keys=_project_keys(roots.workspace))
    plan = plan_import(readings, existing, include_repo=options.include_repo)
    for line in plan_lines(plan, settings_path):
        print(line)
    if not plan.add:
        print(_nothing_to_add(plan, sources, options))
        return 0
    count = _servers(len(plan.add))
    if options.dry_run:
        print(f"Dry run: nothing written. To import {count}: {options.rerun} --yes")
        return 0
    if not options.yes:
        if confirm is None:
            print(f"Nothing written: there is no terminal to ask. To import {count}: {options.rerun} --yes")
            return 1
        if not confirm(_question(plan, settings_path)):
            print("Nothing imported.")
            return 1
    return write_plan(plan, settings_path)


def current_servers(settings_path: Path) -> Mapping[str, object]:
    """The servers already in the user's settings; ConfigError when the file cannot be used."""
    try:
        doc = read_json_object(settings_path)
    except UnreadableFile as exc:
        raise ConfigError(
            f"{exc.problem}; {NOT_OVERWRITTEN}",
            origin=str(settings_path),
        ) from exc
    servers = doc.get(SERVERS_KEY)
    if servers is None:
        return {}
    if not isinstance(servers, Mapping):
        raise ConfigError(f'"{SERVERS_KEY}" in {settings_path} is not an object; fix it first')
    return servers


def read_sources(sources: Sequence[SourceFile], *, project_keys: Sequence[str]) -> list[SourceReading]:
    """Each file read on its own: a missing one is nothing, a broken one a problem naming it."""
    readings = []
    for source in sources:
        doc, problem = read_document(source)
        if problem is not None:
            readings.append(SourceReading(problems=(problem,)))
        else:
            readings.append(read_source(source, doc, project_keys=project_keys))
    return readings


def read_document(source: SourceFile) -> tuple[object, ConfigProblem | None]:
    """The parsed file (None when missing or blank), or a problem naming the file."""
    path = source.path

    def problem(message: str) -> tuple[object, ConfigProblem]:
        return None, ConfigProblem(str(path), "(file)", message)

    limit = MAX_REPO_SOURCE_BYTES if source.repo_authored else MAX_SOURCE_BYTES
    try:
        # A repository could put a FIFO or a device where a config file goes: opening it would hang.
        if not stat.S_ISREG(path.stat().st_mode):
            return problem("not a regular file; not read")
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        return problem(f"cannot be read: {exc.strerror or exc}")
    if len(data) > limit:
        return problem(f"larger than {limit // (1024 * 1024)} MiB; not read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return problem(f"cannot be read: not UTF-8 text ({exc.reason} at byte {exc.start})")
    if not text.strip():
        return None, None
    return parse_json_text(strip_comments(text) if source.comments else text, file=str(path))


def strip_comments(text: str) -> str:
    """VS Code's JSON with comments: `//` and `/* */` comments and trailing commas become spaces, so
    positions in error messages still point at the right line and column."""
    out = list(text)
    index, length, in_string = 0, len(text), False
    last_comma: int | None = None
    while index < length:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string, last_comma = True, None
        elif text.startswith("//", index) or text.startswith("/*", index):
            end = _comment_end(text, index)
            for position in range(index, end):
                if out[position] != "\n":
                    out[position] = " "
            index = end
            continue
        elif char in "}]" and last_comma is not None:
            out[last_comma], last_comma = " ", None
        elif char == ",":
            last_comma = index
        elif not char.isspace():
            last_comma = None
        index += 1
    return "".join(out)


def _comment_end(text: str, start: int) -> int:
    if text.startswith("//", start):
        end = text.find("\n", start)
        return len(text) if end < 0 else end
    end = text.find("*/", start + 2)
    return len(text) if end < 0 else end + 2


def write_plan(plan: ImportPlan, settings_path: Path) -> int:
    outcome: list[list[str]] = []

    def change(doc: JsonDoc) -> None:
        outcome[:] = add_to_settings(doc, plan.add)

    try:
        update_user_settings(change, settings_path)
    except ConfigError as exc:
        print(f"levelcode: {exc}; nothing imported", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"levelcode: could not write {settings_path}: {exc}; nothing imported", file=sys.stderr)
        return 1
    added, kept = outcome
    if kept:
        print(f"Left alone (in your settings by now): {', '.join(visible(name) for name in kept)}")
    print(f"Added {_servers(len(added))} to {settings_path}: {', '.join(visible(name) for name in added)}")
    print("They start without asking; `levelcode mcp list` shows them.")
    return 0


def plan_lines(plan: ImportPlan, settings_path: Path) -> list[str]:
    """The plan as plain text: what is added with what it runs, what is left out and why."""
    sections: list[list[str]] = []
    if plan.add:
        sections.append([f"To add to {settings_path} (they will start without asking):"])
        sections[-1].extend(line for candidate in plan.add for line in candidate_lines(candidate))
    if plan.held:
        sections.append(
            ["Left out, written by the repository, not by you (--include-repo imports them too):"]
        )
        sections[-1].extend(line for candidate in plan.held for line in candidate_lines(candidate))
    if plan.skipped:
        sections.append(["Skipped:"])
        sections[-1].extend(line for skipped in plan.skipped for line in skipped_lines(skipped))
    if plan.problems:
        sections.append(["Could not read:"])
        sections[-1].extend(f"  {visible(str(problem))}" for problem in plan.problems)
    return [line for section in sections for line in (*section, "")]


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


def ask(question: str) -> bool:
    """The question asked the way a card is: only a key pressed once it is drawn answers it, so
    `y` typed as the command starts imports nothing (ui/command_question.py)."""
    from levelcode.ui.command_question import Question
    from levelcode.ui.command_question import ask as ask_keyed

    return ask_keyed(Question(question, ADD_LABEL, "add nothing", KEPT_REASON))


def _question(plan: ImportPlan, settings_path: Path) -> str:
    repo = sum(1 for candidate in plan.add if candidate.origin.repo_authored)
    which = f" ({repo} written by the repository)" if repo else ""
    return f"Add {_servers(len(plan.add))}{which} to {settings_path}?"


def _nothing_to_add(plan: ImportPlan, sources: Sequence[SourceFile], options: ImportOptions) -> str:
    if plan.held:
        hint = f"{options.rerun} --include-repo"
        return f"Nothing to import from your own files. To import the repository's too: {hint}"
    if plan.skipped or plan.problems:
        return "Nothing to import."
    tools = ", ".join(TOOL_LABELS[tool] for tool in options.tools)
    looked = "".join(f"\n  {visible(str(source.path))}" for source in sources)
    return f"Found no MCP servers to import from {tools}. Looked in:{looked}"


def _servers(count: int) -> str:
    return f"{count} server{'' if count == 1 else 's'}"


def _project_keys(workspace: Path) -> tuple[str, ...]:
    """How ~/.claude.json may name this workspace: as given, and with symlinks resolved."""
    return tuple(dict.fromkeys((str(workspace.absolute()), str(workspace.resolve()))))


def _rerun_command(args: argparse.Namespace) -> str:
    words = ["levelcode", "mcp", "import"]
    if getattr(args, "workspace", None):
        words += ["-C", str(args.workspace)]
    for tool in dict.fromkeys(getattr(args, "sources", None) or ()):
        words += ["--from", tool]
    if getattr(args, "include_repo", False):
        words.append("--include-repo")
    return shlex.join(words)
