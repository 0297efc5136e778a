"""Finding git's control entries under the writable folders: every `.git` (folder, file or link),
every `.gitmodules`, and every folder that is itself a git dir (found by its `HEAD`).

Breadth first over all the folders at once, listing directories only (no file is opened, nothing
is followed through a symbolic link), and bounded by a number of entries: a scan that reaches the
bound says so (`complete` is False) and the caller reports it. Nothing is skipped by name —
`node_modules/` or `.venv/` are where a planted repository would hide. Never writes.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.sandbox.git_layout import DOT_GIT, HEAD, SUBMODULES_FILE, looks_like_git_dir

# ~0.3-0.5 s on this kind of machine: a workspace with a few node_modules trees stays below it.
MAX_SCAN_ENTRIES = 300_000

Kind = Literal["dir", "file", "link", "other"]
Role = Literal["git", "modules", "head"]  # a .git, a .gitmodules, the HEAD of a folder that is a git dir


@dataclass(frozen=True)
class ControlEntry:
    path: Path
    role: Role
    kind: Kind
    inode: int

    @property
    def git_dir(self) -> Path | None:
        """The git dir this entry is or makes: a `.git` folder, or the folder a HEAD sits in."""
        if self.role == "git" and self.kind == "dir":
            return self.path
        return self.path.parent if self.role == "head" else None


@dataclass(frozen=True)
class GitScan:
    entries: tuple[ControlEntry, ...]
    complete: bool  # False: the bound was reached and some folders were not listed
    scanned: int  # entries listed


def scan_git_control(roots: Iterable[Path], limit: int = MAX_SCAN_ENTRIES) -> GitScan:
    """The control entries under `roots` (resolved folders), breadth first, up to `limit` entries."""
    queue = deque(roots)
    found: list[ControlEntry] = []
    scanned = 0
    while queue:
        entries = _listing(queue.popleft())
        scanned += len(entries)
        if scanned > limit:
            return GitScan(tuple(found), False, scanned)
        lower = {entry.name.lower(): entry for entry in entries}
        if looks_like_git_dir(lower):  # a git dir itself: its HEAD says so; the rest is its own
            found.append(_control(lower[HEAD], "head"))
            continue
        for entry in entries:
            role = _role(entry.name)
            if role is not None:
                found.append(_control(entry, role))
            elif entry.is_dir(follow_symlinks=False):
                queue.append(Path(entry.path))
    return GitScan(tuple(found), True, scanned)


def _listing(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return list(listing)
    except OSError:  # gone meanwhile, or not ours to read: nothing git could use from us there
        return []


def _role(name: str) -> Role | None:
    lower = name.lower()
    if lower == DOT_GIT:
        return "git"
    return "modules" if lower == SUBMODULES_FILE else None


def _control(entry: os.DirEntry[str], role: Role) -> ControlEntry:
    return ControlEntry(Path(entry.path), role, entry_kind(entry), entry.inode())


def entry_kind(entry: os.DirEntry[str]) -> Kind:
    if entry.is_symlink():
        return "link"
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    return "file" if entry.is_file(follow_symlinks=False) else "other"


def path_identity(path: Path) -> tuple[Kind, int] | None:
    """What is at `path` now (not following a last symbolic link): its kind and inode, or None."""
    try:
        found = path.lstat()
    except OSError:
        return None
    mode = found.st_mode
    kind: Kind = (
        "link"
        if stat.S_ISLNK(mode)
        else "dir"
        if stat.S_ISDIR(mode)
        else "file"
        if stat.S_ISREG(mode)
        else "other"
    )
    return kind, found.st_ino


def git_dirs(scan: GitScan) -> Iterator[Path]:
    for entry in scan.entries:
        if entry.git_dir is not None:
            yield entry.git_dir
