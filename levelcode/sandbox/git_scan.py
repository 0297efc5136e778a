"""Finding git's control entries under the writable folders: every `.git` (folder, file or link),
every `.gitmodules`, every folder that is itself a git dir (found by its `HEAD`) — and every folder
the scan did not list, which the caller must treat as planted: nothing is skipped quietly.

Directories only are listed (no file is opened), the way folder_listings.py lists for every check:
from a descriptor opened with O_NOFOLLOW, breadth first, a listing used again while its folder is
unchanged, and the bound counting only what was listed afresh — a big tree that did not change
(node_modules) is listed once per process, not against every command's bound. Nothing is
skipped by name — `node_modules/` or `.venv/` are where a planted repository would hide. Never
writes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.sandbox.folder_listings import Contents, MakeListable, Unlisted, walk_folders
from levelcode.sandbox.git_layout import DOT_GIT, HEAD, SUBMODULES_FILE

# Entries listed afresh per scan: ~2.5 s cold on this kind of machine (2 cores), paid once per
# process for a workspace that size; later scans list only what changed.
MAX_SCAN_ENTRIES = 1_000_000
PURPOSE = "git control entries"

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
    unlisted: tuple[Unlisted, ...] = ()
    scanned: int = 0  # entries listed afresh

    @property
    def complete(self) -> bool:
        return not self.unlisted


# First letters (either case) of the names the scan looks at: most entries are passed over on
# their first character, which keeps the walk near the cost of listing the folders.
_INTERESTING = frozenset(".hHoOrRcC")
_GIT_DIR_MARKS = {"objects": 1, "refs": 2, "commondir": 4}


def scan_git_control(
    roots: Iterable[Path],
    *,
    limit: int | None = None,
    keep_at_most: int | None = None,
    passed_over: Mapping[str, int] | None = None,
    make_listable: MakeListable | None = None,
) -> GitScan:
    """The control entries under `roots` (resolved folders), breadth first, and the folders not
    listed. `limit`: entries listed afresh (MAX_SCAN_ENTRIES when None); `keep_at_most`: no new
    folder is listed once that many listings are kept; `passed_over`: folders (path: inode) not
    entered while they are that same folder."""
    walked = walk_folders(
        (str(root) for root in roots),
        _control_entries,
        purpose=PURPOSE,
        limit=MAX_SCAN_ENTRIES if limit is None else limit,
        keep_at_most=keep_at_most,
        passed_over=passed_over,
        make_listable=make_listable,
    )
    return GitScan(walked.found, walked.unlisted, walked.fresh)


def _control_entries(prefix: str, entries: Iterator[os.DirEntry[str]]) -> Contents[ControlEntry]:
    found: list[ControlEntry] = []
    subfolders: list[str] = []
    head: os.DirEntry[str] | None = None
    marks = count = 0
    for entry in entries:
        count += 1
        name = entry.name
        if name[0] in _INTERESTING:
            lower = name.lower()
            role = _role(lower)
            if role is not None:
                found.append(_control(prefix + name, entry, role))
                continue  # a .git is covered whole, never entered
            if lower == HEAD:
                head = entry
            marks |= _GIT_DIR_MARKS.get(lower, 0)
        if entry.is_dir(follow_symlinks=False):
            subfolders.append(prefix + name)
    # A git dir itself (HEAD beside objects and refs, or beside a commondir): the rest is its own.
    if head is not None and (marks & 3 == 3 or marks & 4):
        return Contents(count, (), (*found, _control(prefix + head.name, head, "head")))
    return Contents(count, tuple(subfolders), tuple(found))


def _role(lower: str) -> Role | None:
    if lower == DOT_GIT:
        return "git"
    return "modules" if lower == SUBMODULES_FILE else None


def _control(path: str, entry: os.DirEntry[str], role: Role) -> ControlEntry:
    return ControlEntry(Path(path), role, entry_kind(entry), entry.inode())


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
