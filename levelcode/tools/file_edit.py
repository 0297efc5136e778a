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
from levelcode.tools.file_read import existing_file, looks_binary
from levelcode.tools.git_targets import git_target
from levelcode.tools.output_caps import visible_control_chars
from levelcode.tools.path_guard import allowed_roots, display_path, resolve_in_roots
from levelcode.tools.protected_paths import protected_folder

ALWAYS_ASKS = "LevelCode always asks before writing there, autopilot included."
MAX_PREVIEW_LINES = 60
MAX_DIFF_SOURCE_BYTES = 512_000


def _read_text(path: Path, raw: str) -> str:
    if looks_binary(path):
        raise ToolError(f"{raw!r} is a binary file; edit_file only changes text files")
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise ToolError(f"{raw!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _write_text(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _write_file_sync(ctx: ToolContext, args: Args) -> str:
    raw = required_str(args, "path")
    content = required_str(args, "content", allow_empty=True)
    path = resolve_in_roots(ctx, raw)
    if path.is_dir():
        raise ToolError(f"{raw!r} is a directory; give a file path")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_text(path, content)
    except OSError as exc:
        raise ToolError(f"could not write {raw!r}: {exc.strerror or exc}") from exc
    verb = "Overwrote" if existed else "Created"
    size = len(content.encode("utf-8"))
    return f"{verb} {display_path(ctx, path)}: {size} bytes, {_line_count(content)} lines."


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
    path = existing_file(ctx, raw)
    text = _read_text(path, raw)
    updated, count = _replace(text, old, new, replace_all=optional_bool(args, "replace_all"), raw=raw)
    first_line = text[: text.index(old)].count("\n") + 1
    try:
        _write_text(path, updated)
    except OSError as exc:
        raise ToolError(f"could not write {raw!r}: {exc.strerror or exc}") from exc
    where = f"at line {first_line}" if count == 1 else f"first at line {first_line}"
    return f"Replaced {count} occurrence{'s' if count > 1 else ''} in {display_path(ctx, path)} ({where})."


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


def _current_text(path: Path) -> str | None:
    """The file's text for a preview, or None when it is absent, binary, huge or unreadable."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_DIFF_SOURCE_BYTES or looks_binary(path):
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
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
        path = resolve_in_roots(ctx, required_str(args, "path"))
        content = required_str(args, "content", allow_empty=True)
    except ToolError:
        return None
    warning = protected_warning(ctx, path)
    if ctx.autopilot and warning is None:
        return None
    before = _current_text(path)
    title = "Create file" if before is None and not path.exists() else "Write file"
    return _edit_request(ctx, title, path, (before or "", content), warning)


def edit_file_approval(ctx: ToolContext, args: Args) -> ApprovalRequest | None:
    try:
        path = resolve_in_roots(ctx, required_str(args, "path"))
        old = required_str(args, "old_string", allow_empty=True)
        new = required_str(args, "new_string", allow_empty=True)
    except ToolError:
        return None
    warning = protected_warning(ctx, path)
    if ctx.autopilot and warning is None:
        return None
    before = _current_text(path)
    if before is None or not old or old not in before:
        before, after = old, new  # the run will explain the problem; show what was asked for
    else:
        replace_all = args.get("replace_all") is True
        after = before.replace(old, new) if replace_all else before.replace(old, new, 1)
    return _edit_request(ctx, "Edit file", path, (before, after), warning)


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
