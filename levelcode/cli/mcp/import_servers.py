"""`levelcode mcp import`: bring in the MCP servers you set up for Claude Desktop, Claude Code, Cursor
or VS Code, after showing exactly what each one runs: into your settings.json (every workspace), or,
for a server that was one project's (Claude Code's local scope), into your servers for this
workspace alone (`-s local`); other projects' are named, not imported.

Reads the other tools' files and never writes them; writes only your own two files, atomically and
only when told to: --yes, or y then Ctrl-Y pressed once the question is drawn (never type-ahead).
Imported servers start without asking, so servers a repository's files define are left out unless
--include-repo says otherwise (then they too are this workspace's alone).
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

from levelcode.cli.mcp.import_report import SCOPE_WORDS, Targets, plan_lines, servers_count, written_lines
from levelcode.cli.mcp.scope import ServersFile, edit_servers_file, servers_file
from levelcode.cli.printing import workspace_of
from levelcode.core.errors import ConfigError, ConfigProblem
from levelcode.core.json_text import parse_json_text
from levelcode.mcp.config.edit import USER_SETTINGS, user_servers
from levelcode.mcp.config.import_plan import WHERE, ImportPlan, add_servers, plan_import
from levelcode.mcp.config.import_tools import TOOL_LABELS, TOOLS, Tool
from levelcode.mcp.config.importers import (
    Candidate,
    SearchRoots,
    SourceFile,
    SourceReading,
    read_source,
    source_files,
)
from levelcode.platform import paths
from levelcode.platform.json_store import NOT_OVERWRITTEN, JsonDoc, UnreadableFile, read_json_object
from levelcode.platform.workspace_identity import workspace_identity
from levelcode.ui.visible import visible

MAX_SOURCE_BYTES = 128 * 1024 * 1024  # ~/.claude.json keeps growing with use
MAX_REPO_SOURCE_BYTES = 4 * 1024 * 1024  # a repository's config file has no reason to be large
ADD_LABEL = "add them as listed"
KEPT_REASON = (
    "written to your own files: LevelCode starts them without asking, those in your settings in "
    "every workspace, those for this workspace only here"
)


@dataclass(frozen=True)
class ImportOptions:
    tools: tuple[Tool, ...] = TOOLS
    yes: bool = False
    dry_run: bool = False
    include_repo: bool = False
    only_here: bool = False  # every server to this workspace's own file (add-from-claude-desktop -s local)
    rerun: str = "levelcode mcp import"  # the command line that repeats this run, for hints


Confirm = Callable[[str], bool]


def run_import_command(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    options = ImportOptions(
        tools=tuple(dict.fromkeys(getattr(args, "sources", None) or TOOLS)),
        yes=bool(getattr(args, "yes", False)),
        dry_run=bool(getattr(args, "dry_run", False)),
        include_repo=bool(getattr(args, "include_repo", False)),
        only_here=getattr(args, "scope", None) == "local",
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
    targets: Targets = {
        "user": ServersFile(settings_path, USER_SETTINGS),
        "local": servers_file("local", roots.workspace),
    }
    try:
        existing = {to: current_servers(target) for to, target in targets.items()}
    except ConfigError as exc:
        print(f"levelcode: {exc}", file=sys.stderr)
        return 1
    sources = source_files(roots, options.tools)
    readings = read_sources(sources, project_keys=_project_keys(roots.workspace))
    plan = plan_import(
        readings,
        existing["user"],
        here=existing["local"],
        include_repo=options.include_repo,
        only_here=options.only_here,
    )
    for line in plan_lines(plan, targets, roots.workspace):
        print(line)
    if not plan.add:
        print(_nothing_to_add(plan, sources, options))
        return 0
    count = servers_count(len(plan.add))
    if options.dry_run:
        print(f"Dry run: nothing written. To import {count}: {options.rerun} --yes")
        return 0
    if not options.yes:
        if confirm is None:
            print(f"Nothing written: there is no terminal to ask. To import {count}: {options.rerun} --yes")
            return 1
        if not confirm(_question(plan)):
            print("Nothing imported.")
            return 1
    return write_plan(plan, targets)


def current_servers(target: ServersFile) -> Mapping[str, object]:
    """The servers already in one of the user's files; ConfigError when the file cannot be used."""
    try:
        doc = read_json_object(target.path)
    except UnreadableFile as exc:
        raise ConfigError(f"{exc.problem}; {NOT_OVERWRITTEN}", origin=str(target.path)) from exc
    try:
        return user_servers(doc, target.doc)
    except ConfigError as exc:
        raise ConfigError(f"{target.path}: {exc}", origin=str(target.path)) from exc


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


def write_plan(plan: ImportPlan, targets: Targets) -> int:
    """Each file its servers, one after the other; a failure says what was written before it."""
    written = False
    for to in ("user", "local"):
        if not plan.into(to):
            continue
        try:
            added, kept = _write_into(targets[to], plan.into(to))
        except (ConfigError, OSError) as exc:
            more = " more" if written else ""
            print(f"levelcode: {exc}; nothing{more} imported", file=sys.stderr)
            return 1
        written = True
        print(*written_lines(to, targets[to], added, kept), sep="\n")
    print("They start without asking; `levelcode mcp list` shows them.")
    return 0


def _write_into(target: ServersFile, candidates: Sequence[Candidate]) -> tuple[list[str], list[str]]:
    """(added, left alone) in one locked, atomic edit of the file."""
    outcome: list[list[str]] = [[], []]

    def change(doc: JsonDoc) -> JsonDoc | None:
        new, added, kept = add_servers(doc, candidates, target.doc)
        outcome[:] = [added, kept]
        return new if added else None

    edit_servers_file(target, change)
    return outcome[0], outcome[1]


def ask(question: str) -> bool:
    """The question asked the way a card is: only a key pressed once it is drawn answers it, so
    `y` typed as the command starts imports nothing (ui/command_question.py)."""
    from levelcode.ui.command_question import Question
    from levelcode.ui.command_question import ask as ask_keyed

    return ask_keyed(Question(question, ADD_LABEL, "add nothing", KEPT_REASON))


def _question(plan: ImportPlan) -> str:
    parts = []
    for to in ("user", "local"):
        if candidates := plan.into(to):
            repo = sum(1 for candidate in candidates if candidate.origin.repo_authored)
            which = f" ({repo} written by the repository)" if repo else ""
            parts.append(f"{servers_count(len(candidates))}{which} to {WHERE[to]} ({SCOPE_WORDS[to]})")
    return f"Add {' and '.join(parts)}?"


def _nothing_to_add(plan: ImportPlan, sources: Sequence[SourceFile], options: ImportOptions) -> str:
    if plan.held:
        hint = f"{options.rerun} --include-repo"
        return f"Nothing to import from your own files. To import the repository's too: {hint}"
    if plan.elsewhere and not (plan.skipped or plan.problems):
        return "Nothing to import for this workspace."
    if plan.skipped or plan.problems:
        return "Nothing to import."
    tools = ", ".join(TOOL_LABELS[tool] for tool in options.tools)
    looked = "".join(f"\n  {visible(str(source.path))}" for source in sources)
    return f"Found no MCP servers to import from {tools}. Looked in:{looked}"


def _project_keys(workspace: Path) -> tuple[str, ...]:
    """How ~/.claude.json may name this workspace, best first: Claude Code keeps a git repository's
    local servers under the folder of its main worktree, shared by its subfolders and worktrees
    (seen with Claude Code 2.1); a folder outside git, and older entries, by the folder itself."""
    kind, _, rest = workspace_identity(workspace).partition(":")
    common = Path(rest.rpartition(":")[0]) if kind == "git" else None
    root = [str(common.parent)] if common is not None and common.name == ".git" else []
    return tuple(dict.fromkeys([*root, str(workspace.absolute()), str(workspace.resolve())]))


def _rerun_command(args: argparse.Namespace) -> str:
    if getattr(args, "scope", None) == "local":  # only add-from-claude-desktop has -s; keep it
        words = ["levelcode", "mcp", "add-from-claude-desktop", "-s", "local"]
        return shlex.join([*words, *_workspace_words(args)])
    words = ["levelcode", "mcp", "import", *_workspace_words(args)]
    for tool in dict.fromkeys(getattr(args, "sources", None) or ()):
        words += ["--from", tool]
    if getattr(args, "include_repo", False):
        words.append("--include-repo")
    return shlex.join(words)


def _workspace_words(args: argparse.Namespace) -> list[str]:
    return ["-C", str(args.workspace)] if getattr(args, "workspace", None) else []
