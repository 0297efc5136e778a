"""What the git scan (git_scan.py) could not list, made safe rather than skipped. Before a command:
kept read-only for it (one mount each; past MAX_SEALED, the deepest are lifted to the folders
above), so nothing can be planted where nobody looked. After it: a folder the user owns that a
command made unreadable gets its owner's read and search permission back, so it can be checked;
any other folder left unlisted is planted, and moved away with the rest (quarantine.py).

Writes only a folder's mode, and only to add its owner's read and search bits. A command runs as
the user, so a folder it made (or made unreadable) is the user's: one it could not have changed
is another owner's, and stays as it is.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.folder_listings import Unlisted
from levelcode.sandbox.git_scan import path_identity

# Each is a bind mount, ~1.5 ms apiece in bwrap here, and bwrap takes a bounded argument list.
MAX_SEALED = 32
_OWNER_READ_SEARCH = stat.S_IRUSR | stat.S_IXUSR


def sealed_folders(unlisted: Iterable[Unlisted], roots: Sequence[Path]) -> list[tuple[Path, int]]:
    """The folders (with their inodes) that keep what the scan before a command did not list
    read-only for it: at most MAX_SEALED."""
    cover = covering((u.path for u in unlisted), roots, MAX_SEALED)
    found = [(path, path_identity(path)) for path in cover]
    return [(path, identity[1]) for path, identity in found if identity is not None and identity[0] == "dir"]


def covering(folders: Iterable[Path], roots: Sequence[Path], most: int) -> list[Path]:
    """At most `most` folders that hold all of `folders`: themselves, or, where there are more,
    with the deepest lifted to their parents level by level (never above a root)."""
    cover = _outermost(folders)
    while len(cover) > most:
        liftable = [p for p in cover if p not in roots]
        if not liftable:
            break
        deepest = max(len(p.parts) for p in liftable)
        cover = _outermost(p.parent if p in liftable and len(p.parts) == deepest else p for p in cover)
    return cover


def _outermost(paths: Iterable[Path]) -> list[Path]:
    chosen: set[Path] = set()
    for path in sorted(set(paths), key=lambda p: len(p.parts)):
        if not any(parent in chosen for parent in path.parents):
            chosen.add(path)
    return sorted(chosen)


@dataclass(frozen=True)
class Relisted:
    path: Path
    before: int  # its permission bits before, and after
    after: int


class ListableAgain:
    """For the scan after a command (`make_listable`): a folder the user owns that cannot be read
    or searched gets its owner's read and search bits back. What was done is kept for the report."""

    def __init__(self) -> None:
        self.done: list[Relisted] = []

    def __call__(self, folder: Path, status: os.stat_result) -> bool:
        mode = stat.S_IMODE(status.st_mode)
        if status.st_uid != os.geteuid() or mode & _OWNER_READ_SEARCH == _OWNER_READ_SEARCH:
            return False  # another owner's (no command could change it), or not its mode that hides it
        try:
            _change_mode(folder, status, mode | _OWNER_READ_SEARCH)
        except OSError:
            return False
        self.done.append(Relisted(folder, mode, mode | _OWNER_READ_SEARCH))
        return True


def _change_mode(folder: Path, status: os.stat_result, mode: int) -> None:
    """chmod through a descriptor of that very folder: a process still running in the sandbox may
    have swapped it for a link meanwhile, and what that leads to is not ours to change."""
    descriptor = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if os.fstat(descriptor).st_ino != status.st_ino:
            raise OSError(f"{folder} was replaced meanwhile")
        os.chmod(f"/proc/self/fd/{descriptor}", mode)  # an O_PATH descriptor takes no fchmod
    finally:
        os.close(descriptor)


def shown(path: Path, roots: Sequence[Path]) -> str:
    """`path` below the writable folder it is in; a writable folder itself in full."""
    root = next((r for r in roots if path.is_relative_to(r)), None)
    return str(path.relative_to(root)) if root is not None and path != root else str(path)


def relisted_lines(done: Sequence[Relisted], roots: Sequence[Path]) -> list[str]:
    return [
        f"[sandbox] gave {shown(r.path, roots)} back read and search permission for you (mode "
        f"{r.before:04o}, now {r.after:04o}): a command had taken them away, which hid what it holds "
        f"from the check for planted git files. To take them away again: chmod {r.before:04o} {r.path}"
        for r in done
    ]


def sealed_lines(unchecked: Sequence[Unlisted], sealed: Sequence[Path], roots: Sequence[Path]) -> list[str]:
    """What the scan before the command did not list, and what was read-only for it."""
    if not unchecked:
        return []
    reasons = "; ".join(sorted({u.reason for u in unchecked}))
    folders = ", ".join(shown(path, roots) for path in sealed) or "none (they could not be found again)"
    return [
        f"[sandbox] {len(unchecked):,} folder(s) could not be checked for git files before the "
        f"command ({reasons}), so what they hold was read-only for the command: {folders}"
    ]
