"""The read-only file tools `read_file` and `list_directory`.

They never write and need no approval; every path goes through the path guard first and is opened
beneath its root (rooted_files.py). The one exception: `read_file` may read a result this session
saved whole after cutting it (platform/spill_files.py), that file exactly, wherever the state folder
is, opened beneath the folder it was saved in.
"""

from __future__ import annotations

import asyncio
import os
from itertools import islice
from typing import TextIO

from levelcode.core.errors import ToolError
from levelcode.tools.arguments import optional_int, optional_str, required_str
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from levelcode.tools.path_guard import Placed, display_path, place_in_roots, resolved
from levelcode.tools.rooted_files import Opened, opened_for_reading

MAX_LINES = 2000
MAX_OUTPUT_CHARS = 60_000
MAX_LINE_CHARS = 2000
MAX_ENTRIES = 500


def readable_place(ctx: ToolContext, raw: str) -> Placed:
    """What `read_file` may read: a path inside the allowed roots, or one of this session's saved
    results (by its resolved path: a link to it works, a neighbour of it does not)."""
    if ctx.saved_results is not None and "\x00" not in raw:
        real = resolved(raw, ctx.workspace / os.path.expanduser(raw))
        if ctx.saved_results.allows(real):
            return Placed(real, real.parent, raw)
    return place_in_roots(ctx, raw)


def text_file(opened: Opened, raw: str, only: str) -> None:
    """Refuse what a text tool cannot read: a folder, or a binary file (`only` says what it does)."""
    if opened.is_folder:
        raise ToolError(f"{raw!r} is a directory; use list_directory or find_files to see inside it")
    if opened.looks_binary():
        size = opened.info.st_size
        raise ToolError(f"{raw!r} is a binary file ({size} bytes); {only}")


def _numbered(handle: TextIO, start: int, end: int | None) -> tuple[list[str], int | None]:
    """Numbered lines from `start` to `end` (1-based, inclusive) and the next line number if cut."""
    lines: list[str] = []
    size = 0
    for number, line in enumerate(islice(handle, start - 1, end), start=start):
        text = line.rstrip("\r\n")
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " ... [line cut]"
        if len(lines) >= MAX_LINES or size + len(text) > MAX_OUTPUT_CHARS:
            return lines, number
        lines.append(f"{number:>6}\t{text}")
        size += len(text) + 8
    return lines, None


def _read_file_sync(ctx: ToolContext, args: Args) -> str:
    raw = required_str(args, "path")
    start = optional_int(args, "start_line", 1, minimum=1, maximum=10**9)
    end = (
        None if args.get("end_line") is None else optional_int(args, "end_line", 1, minimum=1, maximum=10**9)
    )
    if end is not None and end < start:
        raise ToolError(f"end_line ({end}) is before start_line ({start})")
    placed = readable_place(ctx, raw)
    with opened_for_reading(placed) as opened:
        text_file(opened, raw, "read_file only shows text files")
        with opened.text() as handle:
            lines, next_line = _numbered(handle, start, end)
    if not lines:
        return f"(no lines: {display_path(ctx, placed.path)} is empty or shorter than line {start})"
    if next_line is not None:
        lines.append(
            f"[output capped: showing lines {start}-{next_line - 1}; "
            f"call read_file with start_line={next_line} to read on]"
        )
    return "\n".join(lines)


async def read_file(ctx: ToolContext, args: Args) -> str:
    return await asyncio.to_thread(_read_file_sync, ctx, args)


def _entry_line(entry: os.DirEntry[str], folder: int) -> str:
    if entry.is_symlink():
        return f"{entry.name} -> {os.readlink(entry.name, dir_fd=folder)}"
    return entry.name + "/" if entry.is_dir(follow_symlinks=False) else entry.name


def _list_directory_sync(ctx: ToolContext, args: Args) -> str:
    raw = optional_str(args, "path", ".")
    placed = place_in_roots(ctx, raw)
    with opened_for_reading(placed) as opened:
        if not opened.is_folder:
            raise ToolError(f"{raw!r} is not a directory (looked at {placed.path})")
        with os.scandir(opened.fd) as entries:
            lines = sorted(_entry_line(entry, opened.fd) for entry in entries)
    if not lines:
        return f"({display_path(ctx, placed.path)} is empty)"
    if len(lines) > MAX_ENTRIES:
        more = len(lines) - MAX_ENTRIES
        lines = [*lines[:MAX_ENTRIES], f"[... and {more} more entries; use find_files to narrow down]"]
    return "\n".join(lines)


async def list_directory(ctx: ToolContext, args: Args) -> str:
    return await asyncio.to_thread(_list_directory_sync, ctx, args)


READ_FILE = BuiltinTool(
    name="read_file",
    description=(
        "Read a text file and return its lines numbered from 1. Use start_line and end_line "
        f"(1-based, inclusive) for part of a long file; output stops after {MAX_LINES} lines with a "
        "note saying where to continue. Binary files are refused."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace or absolute"},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        "required": ["path"],
    },
    run=read_file,
)

LIST_DIRECTORY = BuiltinTool(
    name="list_directory",
    description=(
        "List one directory's entries, sorted; directories end with '/', symbolic links show their target."
    ),
    input_schema={
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Directory; default the workspace"}},
    },
    run=list_directory,
)
