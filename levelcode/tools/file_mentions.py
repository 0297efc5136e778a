"""`@path` in a message: the file (or folder) attached to it, and the paths Tab offers for it.

Load-bearing direction: a path is read only after the path guard (tools/path_guard.py, the one
every file tool uses) has resolved it inside the workspace or a directory the user added, and then
opened beneath that root (tools/rooted_files.py); a path outside, through a symbolic link included,
is refused with its one-line reason and never opened.
A binary file is refused; a text file is attached up to `MAX_ATTACHED_FILE_CHARS`, with a note
saying where the rest starts. Completion lists only directories inside the allowed roots.
"""

from __future__ import annotations

import os

from levelcode.core.attachments import Attachment, file_attachment, folder_attachment
from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.path_guard import ALLOW_MORE_HINT, display_path, place_in_roots
from levelcode.tools.rooted_files import Missing, Opened, opened_for_reading

MAX_ATTACHED_FILE_CHARS = 40_000  # about 10,000 tokens: a large file is read on with read_file
MAX_FOLDER_ENTRIES = 200
MAX_COMPLETIONS = 100


def attach_path(ctx: ToolContext, raw: str) -> Attachment:
    """The file or folder `raw` names, as an attachment. Raises ToolError (one line) when it is
    outside the allowed directories, missing, binary, or not a file or folder."""
    try:
        placed = place_in_roots(ctx, raw)
    except ToolError as exc:  # the user, unlike the model, knows how to allow more (/add-dir)
        raise ToolError(str(exc).removesuffix(" " + ALLOW_MORE_HINT)) from None
    shown = display_path(ctx, placed.path)
    try:
        with opened_for_reading(placed) as opened:
            return _attachment(opened, shown)
    except Missing:
        raise ToolError(f"no file or folder {raw!r} (looked at {placed.path})") from None


def _attachment(opened: Opened, shown: str) -> Attachment:
    if opened.is_folder:
        return folder_attachment(shown, _listing(opened.fd))
    size = opened.info.st_size
    if opened.looks_binary():
        raise ToolError(f"{shown} is a binary file ({size:,} bytes); only text is attached")
    with opened.text() as handle:
        body = handle.read(MAX_ATTACHED_FILE_CHARS + 1)
    if len(body) <= MAX_ATTACHED_FILE_CHARS:
        return file_attachment(shown, body, size=len(body))
    body = body[:MAX_ATTACHED_FILE_CHARS]
    next_line = body.count("\n") + 1
    note = (
        f"[cut: only the first {MAX_ATTACHED_FILE_CHARS:,} characters of this {size:,}-byte file are "
        f"attached; read_file with start_line={next_line} reads on]"
    )
    return file_attachment(shown, body, size=size, cut_note=note)


def _listing(folder: int) -> str:
    with os.scandir(folder) as entries:
        names = sorted(entry.name + ("/" if entry.is_dir(follow_symlinks=False) else "") for entry in entries)
    if len(names) > MAX_FOLDER_ENTRIES:
        more = len(names) - MAX_FOLDER_ENTRIES
        names = [*names[:MAX_FOLDER_ENTRIES], f"[… and {more} more entries; list_directory shows them]"]
    return "\n".join(names) or "(empty)"


def path_completions(ctx: ToolContext, partial: str) -> list[str]:
    """What `@partial` may become: the entries of the directory it names that start with its last
    part, folders ending in `/`; hidden ones only when that part starts with a dot. An empty
    `partial` offers the added directories too. Nothing outside the allowed roots."""
    head, slash, prefix = partial.rpartition("/")
    found = _entries(ctx, head + slash or ".", prefix)
    if not partial:
        found += [f"{root}/" for root in ctx.extra_roots]
    return found[:MAX_COMPLETIONS]


def _entries(ctx: ToolContext, written: str, prefix: str) -> list[str]:
    try:
        with opened_for_reading(place_in_roots(ctx, written)) as opened:
            if not opened.is_folder:
                return []
            with os.scandir(opened.fd) as entries:
                listed = [(entry.name, entry.is_dir()) for entry in entries if entry.name.startswith(prefix)]
    except (ToolError, OSError):
        return []
    shown = [(name, is_dir) for name, is_dir in listed if prefix.startswith(".") or not name.startswith(".")]
    start = "" if written == "." else written
    return [start + name + ("/" if is_dir else "") for name, is_dir in sorted(shown)]
