"""Reading a repository's own text files — its rules file, its slash commands — so that nothing
outside the workspace reaches the model by way of one: only a regular file that is inside the
repository once opened. A symbolic link may point within it (AGENTS.md → CLAUDE.md), never out
of it (AGENTS.md → ~/.ssh/id_rsa, planted by a clone or by a command the agent ran); a FIFO or a
device is never read (opening a FIFO would wait for a writer forever).

The check is made on the file opened, not on its name: the opened file must be the one that the
name's resolved path, inside the workspace, names (same device and inode), so a link swapped
between the open and the check makes the read fail, never reach outside.

Reads files; never writes, never follows a link out of the workspace.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_text_file(path: Path, limit: int, *, within: Path | None = None) -> str | None:
    """The text of `path` (at most `limit` characters, and one more to show it was cut), or None
    when it is missing or not a regular file, or — given `within`, the repository — leads out of
    it. Without `within` (the user's own files), links lead anywhere."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as opened:
        if not _regular(fd) or (within is not None and not _inside(fd, path, within)):
            return None
        return opened.read(limit + 1)


def _regular(fd: int) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _inside(fd: int, path: Path, root: Path) -> bool:
    """Whether `path`, resolved, names a file inside `root`, and that file is the open `fd`."""
    try:
        opened = os.fstat(fd)
        resolved = Path(os.path.realpath(path))
        named = os.stat(resolved, follow_symlinks=False)
        real_root = Path(os.path.realpath(root))
    except OSError:
        return False
    return resolved.is_relative_to(real_root) and (named.st_dev, named.st_ino) == (
        opened.st_dev,
        opened.st_ino,
    )


def file_names(folder: Path, suffix: str) -> list[str]:
    """The names ending in `suffix` in `folder`, sorted; none when it is missing. Names only:
    each file is read, and checked, by `read_text_file`."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries if entry.name.endswith(suffix))
    except OSError:
        return []
