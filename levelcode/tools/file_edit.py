"""The writing file tools `write_file` and `edit_file`, and the approval card each shows.

Both ask first (kind "edit", with the path and a short diff) unless the session is on autopilot.
A write under the workspace's `.git/` or `.levelcode/`, or to a file git acts on (`.gitmodules`, a
HEAD, what the user's git config names: git_targets.py), asks even on autopilot, flagged and
without "always allow". The path guard applies whatever the approval said: autopilot never widens where a
tool may write.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path

from levelcode.core.approvals import ApprovalRequest
from levelcode.core.errors import ToolError
from levelcode.tools.arguments import optional_bool, required_str
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from levelcode.tools.file_read import text_file
from levelcode.tools.git_targets import git_target
from levelcode.tools.output_caps import visible_control_chars
from levelcode.tools.path_guard import Placed, allowed_roots, display_path, place_in_roots
from levelcode.tools.protected_paths import protected_folder
from levelcode.tools.rooted_files import opened_for_reading, write_placed

ALWAYS_ASKS = "LevelCode always asks before writing there, autopilot included."
MAX_PREVIEW_LINES = 60
MAX_DIFF_SOURCE_BYTES = 512_000


def _read_text(placed: Placed) -> str:
    with opened_for_reading(placed) as opened:
        text_file(opened, placed.raw, "edit_file only changes text files")
        try:
            with opened.text(errors="strict") as handle:
                return handle.read()
        except UnicodeDecodeError as exc:
            raise ToolError(f"{placed.raw!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _write_file_sync(ctx: ToolContext, args: Args) -> str:
    raw = required_str(args, "path")
    content = required_str(args, "content", allow_empty=True)
    placed = place_in_roots(ctx, raw)
    data = content.encode("utf-8")
    verb = "Overwrote" if write_placed(placed, data) else "Created"
    return f"{verb} {display_path(ctx, placed.path)}: {len(data)} bytes, {_line_count(content)} lines."


async def write_file(ctx: ToolContext, args: Args) -> str:
    return await asyncio.to_thread(_write_file_sync, ctx, args)


def _replace(text: str, old: str, new: str, *, replace_all: bool, raw: str) -> tuple[str, int]:
    if not old:
        raise ToolError("old_string must not be empty; use write_file to create or replace a whole file")
    if old == new:
        raise ToolError("old_string and new_string are the same; nothing would change")
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {raw!r} (0 matches); read the file and copy the exact text, "
            "including whitespace and indentation"
        )
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string matches {count} places in {raw!r}; include more surrounding lines so it matches "
            "exactly one, or set replace_all to true to change all of them"
        )
    return text.replace(old, new), count


def _edit_file_sync(ctx: ToolContext, args: Args) -> str:
    raw = required_str(args, "path")
    old = required_str(args, "old_string", allow_empty=True)
    new = required_str(args, "new_string", allow_empty=True)
    placed = place_in_roots(ctx, raw)
    text = _read_text(placed)
    updated, count = _replace(text, old, new, replace_all=optional_bool(args, "replace_all"), raw=raw)
    first_line = text[: text.index(old)].count("\n") + 1
    write_placed(placed, updated.encode("utf-8"))
    where = f"at line {first_line}" if count == 1 else f"first at line {first_line}"
    shown = display_path(ctx, placed.path)
    return f"Replaced {count} occurrence{'s' if count > 1 else ''} in {shown} ({where})."


async def edit_file(ctx: ToolContext, args: Args) -> str:
    return await asyncio.to_thread(_edit_file_sync, ctx, args)


def _preview(before: str, after: str, name: str) -> tuple[str, ...]:
    diff = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=2, lineterm=""
        )
    )
    if len(diff) > MAX_PREVIEW_LINES:
        diff = [*diff[:MAX_PREVIEW_LINES], f"... ({len(diff) - MAX_PREVIEW_LINES} more diff lines)"]
    return tuple(visible_control_chars(line) for line in diff) or ("(no textual change)",)


def _current_text(placed: Placed) -> str | None:
    """The file's text for a preview, or None when it is absent, binary, huge or unreadable."""
    try:
        with opened_for_reading(placed) as opened:
            if opened.is_folder or opened.info.st_size > MAX_DIFF_SOURCE_BYTES or opened.looks_binary():
                return None
            with opened.text() as handle:
                return handle.read()
    except (ToolError, OSError):
        return None


def protected_warning(ctx: ToolContext, path: Path) -> str | None:
    """Why writing `path` (resolved) always needs a person: it lies under `.git/` or `.levelcode/`
    of the workspace or an added directory, or git acts on it (git_targets.py). None for every
    other path."""
    roots = allowed_roots(ctx)
    for root in roots:
        found = protected_folder(path.relative_to(root).parts) if path.is_relative_to(root) else None
        if found is not None:
            return f"Writes under {found[0]}/ ({found[1]}): {ALWAYS_ASKS}"
    why = git_target(path, roots)
    return None if why is None else f"Writes {display_path(ctx, path)} ({why}): {ALWAYS_ASKS}"


def _edit_request(
    ctx: ToolContext, title: str, path: Path, change: tuple[str, str], warning: str | None
) -> ApprovalRequest:
    name = display_path(ctx, path)
    return ApprovalRequest(
        kind="edit",
        title=f"{title} · {name}",
        body=_preview(*change, name),
        warning=warning,
        allow_always=warning is None,
        always_label="always allow file edits this session",
    )


def write_file_approval(ctx: ToolContext, args: Args) -> ApprovalRequest | None:
    """Ask before writing unless on autopilot and the path is an ordinary one. A path the guard
    refuses needs no card: it fails."""
    try:
        placed = place_in_roots(ctx, required_str(args, "path"))
        content = required_str(args, "content", allow_empty=True)
    except ToolError:
        return None
    warning = protected_warning(ctx, placed.path)
    if ctx.autopilot and warning is None:
        return None
    before = _current_text(placed)
    title = "Create file" if before is None and not placed.path.exists() else "Write file"
    return _edit_request(ctx, title, placed.path, (before or "", content), warning)


def edit_file_approval(ctx: ToolContext, args: Args) -> ApprovalRequest | None:
    try:
        placed = place_in_roots(ctx, required_str(args, "path"))
        old = required_str(args, "old_string", allow_empty=True)
        new = required_str(args, "new_string", allow_empty=True)
    except ToolError:
        return None
    warning = protected_warning(ctx, placed.path)
    if ctx.autopilot and warning is None:
        return None
    before = _current_text(placed)
    if before is None or not old or old not in before:
        before, after = old, new  # the run will explain the problem; show what was asked for
    else:
        replace_all = args.get("replace_all") is True
        after = before.replace(old, new) if replace_all else before.replace(old, new, 1)
    return _edit_request(ctx, "Edit file", placed.path, (before, after), warning)


_PATH = {"type": "string", "description": "File path, relative to the workspace or absolute"}

WRITE_FILE = BuiltinTool(
    name="write_file",
    description=(
        "Create a file or replace its whole content; parent directories are created. Prefer "
        "edit_file to change part of an existing file."
    ),
    input_schema={
        "type": "object",
        "properties": {"path": _PATH, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
    run=write_file,
    approval=write_file_approval,
)

EDIT_FILE = BuiltinTool(
    name="edit_file",
    description=(
        "Replace an exact piece of text in a file. old_string must match exactly one place "
        "(whitespace included) unless replace_all is true; read the file first."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": _PATH,
            "old_string": {"type": "string", "description": "Exact text to replace"},
            "new_string": {"type": "string", "description": "Text to put in its place"},
            "replace_all": {"type": "boolean", "default": False},
        },
        "required": ["path", "old_string", "new_string"],
    },
    run=edit_file,
    approval=edit_file_approval,
)
