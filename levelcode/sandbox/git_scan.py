"""Finding git's control entries under the writable folders: every `.git` (folder, file or link),
every `.gitmodules`, and every folder that is itself a git dir (found by its `HEAD`).

Breadth first over all the folders at once, listing directories only (no file is opened, nothing
is followed through a symbolic link), and bounded by a number of entries: a scan that reaches the
bound says so (`complete` is False) and the caller reports it. Nothing is skipped by name —
`node_modules/` or `.venv/` are where a planted repository would hide. Never writes.

A folder's listing is kept for the next scan (of this process) and used again while the folder
is unchanged: the same inode, modification and change times. Adding, removing or renaming an
entry changes both times of the folder it is in, and nothing inside the sandbox can set a change
time back (it is the kernel's clock, and every `utimes` moves it to now). A folder changed within
`RACY_SECONDS` of its listing is listed again next time, since a coarse file-system clock could
give a later change the same time (as git's own index does for racy entries). So a scan after a
command costs one `lstat` per folder plus the listing of the folders that changed.
"""

from __future__ import annotations

import os
import stat
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.sandbox.git_layout import DOT_GIT, HEAD, SUBMODULES_FILE

# ~0.3-0.5 s on this kind of machine listed cold: a workspace with a few node_modules trees stays
# below it.
MAX_SCAN_ENTRIES = 300_000
RACY_SECONDS = 2.0  # also covers file systems that keep times to the second
MAX_KEPT_LISTINGS = 200_000

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


# First letters (either case) of the names the scan looks at: most entries are passed over on
# their first character, which keeps the walk near the cost of listing the folders.
_INTERESTING = frozenset(".hHoOrRcC")
_GIT_DIR_MARKS = {"objects": 1, "refs": 2, "commondir": 4}


@dataclass(frozen=True)
class _Listing:
    """What one folder held when it was listed, and how to tell that it has not changed since."""

    identity: tuple[int, int, int]  # inode, modification time, change time (ns)
    reusable: bool  # listed long enough after its last change for the times to tell
    entries: int
    subfolders: tuple[str, ...]  # () for a git dir: its content is its own
    found: tuple[ControlEntry, ...]


_kept: dict[str, _Listing] = {}


def scan_git_control(roots: Iterable[Path], limit: int = MAX_SCAN_ENTRIES) -> GitScan:
    """The control entries under `roots` (resolved folders), breadth first, up to `limit` entries."""
    queue = deque(str(root) for root in roots)
    found: list[ControlEntry] = []
    scanned = 0
    while queue:
        listing = _listed(queue.popleft())
        if listing is None:  # gone meanwhile, or not ours to read: nothing git could use there
            continue
        scanned += listing.entries
        if scanned > limit:
            return GitScan(tuple(found), False, scanned)
        found += listing.found
        queue.extend(listing.subfolders)
    if len(_kept) > MAX_KEPT_LISTINGS:
        _kept.clear()
    return GitScan(tuple(found), True, scanned)


def _listed(folder: str) -> _Listing | None:
    try:
        status = os.lstat(folder)
    except OSError:
        return None
    identity = (status.st_ino, status.st_mtime_ns, status.st_ctime_ns)
    kept = _kept.get(folder)
    if kept is not None and kept.reusable and kept.identity == identity:
        return kept
    changed = max(status.st_mtime_ns, status.st_ctime_ns) / 1e9
    try:
        listing = _list(folder, identity, reusable=time.time() - changed > RACY_SECONDS)
    except OSError:
        return None
    _kept[folder] = listing
    return listing


def _list(folder: str, identity: tuple[int, int, int], *, reusable: bool) -> _Listing:
    found: list[ControlEntry] = []
    subfolders: list[str] = []
    head: os.DirEntry[str] | None = None
    marks = entries = 0
    with os.scandir(folder) as listing:
        for entry in listing:
            entries += 1
            name = entry.name
            if name[0] in _INTERESTING:
                lower = name.lower()
                role = _role(lower)
                if role is not None:
                    found.append(_control(entry, role))
                    continue  # a .git is covered whole, never entered
                if lower == HEAD:
                    head = entry
                marks |= _GIT_DIR_MARKS.get(lower, 0)
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.path)
    if head is not None and (marks & 3 == 3 or marks & 4):  # a git dir itself: the rest is its own
        return _Listing(identity, reusable, entries, (), (*found, _control(head, "head")))
    return _Listing(identity, reusable, entries, tuple(subfolders), tuple(found))


def _role(lower: str) -> Role | None:
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
