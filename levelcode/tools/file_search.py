"""The read-only search tools `find_files` (by glob) and `search_files` (by regex over contents).

Both walk with `FileWalk`: .gitignore honoured, `.git` skipped, never outside the allowed roots,
each file opened from its folder's descriptor.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

from levelcode.core.errors import ToolError
from levelcode.tools.arguments import optional_bool, optional_int, optional_str, required_str
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from levelcode.tools.file_walk import FileWalk, WalkedFile, glob_matcher
from levelcode.tools.path_guard import allowed_roots, display_path, place_in_roots
from levelcode.tools.rooted_files import opened_for_reading

DEFAULT_RESULTS = 200
MAX_RESULTS = 1000
MAX_SEARCH_FILE_BYTES = 5_000_000
MAX_MATCH_CHARS = 300


def _search_root(ctx: ToolContext, args: Args) -> Path:
    placed = place_in_roots(ctx, optional_str(args, "path", "."))
    with opened_for_reading(placed):  # says what is wrong with it: missing, a FIFO, a link now
        return placed.path


def _files(root: Path, walk: FileWalk, glob: re.Pattern[str] | None) -> Iterator[WalkedFile]:
    for found in walk:
        if found.path == root or glob is None or glob.match(found.path.relative_to(root).as_posix()):
            yield found


def _capped(
    lines: list[str], found: int, limit: int, walk: FileWalk, what: str, *, partial: bool = False
) -> str:
    if found > limit:
        count = f"at least {found - limit}" if partial else str(found - limit)
        lines.append(f"[... {count} more {what} not shown; narrow the search]")
    if walk.truncated:
        lines.append("[the walk stopped early: too many files; search a smaller directory]")
    return "\n".join(lines)


def _find_files_sync(ctx: ToolContext, args: Args) -> str:
    pattern = required_str(args, "pattern")
    limit = optional_int(args, "max_results", DEFAULT_RESULTS, minimum=1, maximum=MAX_RESULTS)
    root = _search_root(ctx, args)
    walk = FileWalk(root, allowed_roots(ctx))
    found = sorted(display_path(ctx, file.path) for file in _files(root, walk, glob_matcher(pattern)))
    if not found:
        return f"No files match {pattern!r} under {display_path(ctx, root)}."
    return _capped(found[:limit], len(found), limit, walk, "files")


async def find_files(ctx: ToolContext, args: Args) -> str:
    return await asyncio.to_thread(_find_files_sync, ctx, args)


def _compile(args: Args) -> re.Pattern[str]:
    pattern = required_str(args, "pattern")
    flags = re.IGNORECASE if optional_bool(args, "case_insensitive") else 0
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise ToolError(f"pattern {pattern!r} is not a valid Python regular expression: {exc}") from exc


def _shortened(text: str) -> str:
    return text if len(text) <= MAX_MATCH_CHARS else text[:MAX_MATCH_CHARS] + " ..."


def _matches(file: WalkedFile, regex: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    try:
        with file.opened() as opened:
            if opened.is_folder or opened.info.st_size > MAX_SEARCH_FILE_BYTES or opened.looks_binary():
                return
            with opened.text() as handle:
                for number, line in enumerate(handle, start=1):
                    if regex.search(line):
                        yield number, _shortened(line.rstrip("\r\n"))
    except (OSError, ToolError):  # gone, unreadable, or a link now: not searched
        return


def _search_files_sync(ctx: ToolContext, args: Args) -> str:
    regex = _compile(args)
    limit = optional_int(args, "max_results", DEFAULT_RESULTS, minimum=1, maximum=MAX_RESULTS)
    glob_text = args.get("glob")
    glob = glob_matcher(required_str(args, "glob")) if glob_text is not None else None
    root = _search_root(ctx, args)
    walk = FileWalk(root, allowed_roots(ctx))
    lines: list[str] = []
    found = 0
    for file in _files(root, walk, glob):
        for number, text in _matches(file, regex):
            found += 1
            if found <= limit:
                lines.append(f"{display_path(ctx, file.path)}:{number}: {text}")
        if found > limit * 4:  # enough to say "many more"; stop reading
            return _capped(lines, found, limit, walk, "matching lines", partial=True)
    if not lines:
        return f"No matches for {regex.pattern!r} under {display_path(ctx, root)}."
    return _capped(lines, found, limit, walk, "matching lines")


async def search_files(ctx: ToolContext, args: Args) -> str:
    return await asyncio.to_thread(_search_files_sync, ctx, args)


_PATH_PROPERTY = {"type": "string", "description": "Directory (or file) to search; default the workspace"}
_MAX_RESULTS_PROPERTY = {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_RESULTS}

FIND_FILES = BuiltinTool(
    name="find_files",
    description=(
        "Find files by glob pattern, e.g. '**/*.py', 'src/*.ts', '*.{md,txt}'. A pattern without '/' "
        "matches file names at any depth. Results are sorted and capped; .gitignore'd files and .git "
        "are skipped."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob, relative to path"},
            "path": _PATH_PROPERTY,
            "max_results": _MAX_RESULTS_PROPERTY,
        },
        "required": ["pattern"],
    },
    run=find_files,
)

SEARCH_FILES = BuiltinTool(
    name="search_files",
    description=(
        "Search file contents with a Python regular expression; prints 'file:line: text' for each "
        "matching line. Skips .gitignore'd files, .git and binary files. Narrow with 'glob' "
        "(e.g. '*.py')."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Python regular expression"},
            "path": _PATH_PROPERTY,
            "glob": {"type": "string", "description": "Only search files matching this glob"},
            "case_insensitive": {"type": "boolean", "default": False},
            "max_results": _MAX_RESULTS_PROPERTY,
        },
        "required": ["pattern"],
    },
    run=search_files,
)
