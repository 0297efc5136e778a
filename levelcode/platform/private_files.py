"""Creating LevelCode's private files: spill files, server logs, the debug log, the REPL history and
the protocol memory are created 0600, inside folders closed to other users (0700).

A folder LevelCode owns — the state folder and the folders below it, or a folder handed over to
hold private files — is tightened to 0700 when it exists with a looser mode, since that is what
keeps other users out of files an earlier version left readable. A file that already exists keeps
its mode. Never loosens a mode, never touches a folder above the state folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO, TextIO

from levelcode.platform import paths

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(folder: Path) -> Path:
    """`folder`, created if missing, and with every folder from it up to the state folder closed
    to other users. Failing to tighten (a folder of another owner) is left to the file modes."""
    folder.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    for owned in _owned(folder):
        try:
            current = stat.S_IMODE(owned.stat().st_mode)
            if current & ~FOLDER_MODE:
                os.chmod(owned, current & FOLDER_MODE)
        except OSError:
            pass
    return folder


def _owned(folder: Path) -> list[Path]:
    """`folder` and its parents up to and including the state folder, when it lies below it."""
    state = paths.state_dir().absolute()
    folder = folder.absolute()
    if not folder.is_relative_to(state):
        return [folder]
    return [folder, *(parent for parent in folder.parents if parent.is_relative_to(state))]


def open_private(path: Path, flags: int) -> int:
    """A descriptor for `path` opened with `flags`; created 0600 if it is new, in a private folder."""
    private_folder(path.parent)
    return os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)


def append_private(path: Path) -> BinaryIO:
    return os.fdopen(open_private(path, os.O_WRONLY | os.O_APPEND), "ab")


def append_private_text(path: Path) -> TextIO:
    return os.fdopen(open_private(path, os.O_WRONLY | os.O_APPEND), "a", encoding="utf-8")


def write_private_text(path: Path, text: str) -> None:
    with os.fdopen(
        open_private(path, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8", errors="replace"
    ) as out:
        out.write(text)


def touch_private(path: Path) -> Path:
    """`path`, created empty and private if it is missing (for a file another library appends to)."""
    os.close(open_private(path, os.O_WRONLY))
    return path
