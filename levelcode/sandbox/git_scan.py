"""Finding git's control entries under the writable folders: every `.git` (folder, file or link),
every `.gitmodules`, every folder that is itself a git dir (found by its `HEAD`) — and every folder
the scan did not list, which the caller must treat as planted: nothing is skipped quietly.

Breadth first over all the folders at once, listing directories only: each folder is opened with
O_NOFOLLOW and listed from its descriptor (no file is opened, nothing is followed through a
symbolic link). Nothing is skipped by name — `node_modules/` or `.venv/` are where a planted
repository would hide. Never writes: a folder that cannot be read or searched is offered to the
caller's `make_listable` (which may give it back its permission), else reported in `unlisted`.

A folder is not listed when
- it cannot be read or searched (its mode, an ACL): git needs only search permission to reach
  what is inside, so what it holds is unknown, not absent;
- its path is longer than MAX_PATH_CHARS: git itself stops at PATH_MAX (4,096), but a folder
  above renamed shorter brings what lies beyond within its reach; the folder is reported whole,
  with a path short enough to be moved or mounted by name;
- the scan has listed `limit` entries afresh.

A folder's listing is kept for the next scan (of this process) and used again while the folder
is unchanged: the same inode, modification and change times. Adding, removing or renaming an
entry changes both times of the folder it is in, and nothing inside the sandbox can set a change
time back (it is the kernel's clock, and every `utimes` moves it to now). A folder changed within
`RACY_SECONDS` of its listing is listed again next time, since a coarse file-system clock could
give a later change the same time (as git's own index does for racy entries). So a scan after a
command costs one `lstat` per folder plus the listing of the folders that changed — and the bound
counts only those: a big tree that did not change (node_modules) is listed once per process, not
against every command's bound.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from levelcode.sandbox.git_layout import DOT_GIT, HEAD, SUBMODULES_FILE

# Entries listed afresh per scan: ~2.5 s cold on this kind of machine (2 cores), paid once per
# process for a workspace that size; later scans list only what changed.
MAX_SCAN_ENTRIES = 1_000_000
# Past this, a folder is reported, not listed: below PATH_MAX by more than a name (255), so the
# folder itself can still be moved or mounted by its path.
MAX_PATH_CHARS = 3_072
RACY_SECONDS = 2.0  # also covers file systems that keep times to the second
MAX_KEPT_LISTINGS = 200_000  # folders; ~400 bytes each

Kind = Literal["dir", "file", "link", "other"]
Role = Literal["git", "modules", "head"]  # a .git, a .gitmodules, the HEAD of a folder that is a git dir
# Asked about a folder that cannot be read or searched (its lstat given): True when it was made
# listable, and the scan tries once more. The caller's remedy: the scan itself never writes.
MakeListable = Callable[[Path, os.stat_result], bool]


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
class Unlisted:
    """A folder the scan did not list, and why, in words for people."""

    path: Path
    reason: str


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


@dataclass(frozen=True)
class _Listing:
    """What one folder held when it was listed, and how to tell that it has not changed since."""

    identity: tuple[int, int, int]  # inode, modification time, change time (ns)
    reusable: bool  # listed long enough after its last change for the times to tell
    entries: int
    subfolders: tuple[str, ...]  # () for a git dir: its content is its own
    found: tuple[ControlEntry, ...]


_kept: dict[str, _Listing] = {}


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
    walk = _Walk(MAX_SCAN_ENTRIES if limit is None else limit, keep_at_most, passed_over or {}, make_listable)
    queue = deque(str(root) for root in roots)
    while queue:
        listing = walk.visit(queue.popleft())
        if listing is not None:
            walk.found += listing.found
            queue.extend(listing.subfolders)
    walk.forget_the_unvisited()
    return GitScan(tuple(walk.found), tuple(walk.unlisted), walk.fresh)


@dataclass
class _Walk:
    limit: int
    keep_at_most: int | None
    passed_over: Mapping[str, int]
    make_listable: MakeListable | None
    fresh: int = 0  # entries listed afresh so far
    found: list[ControlEntry] = field(default_factory=list)
    unlisted: list[Unlisted] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)

    def visit(self, folder: str) -> _Listing | None:
        try:
            status = os.lstat(folder)
        except OSError as exc:
            self._failed(folder, exc)
            return None
        if not stat.S_ISDIR(status.st_mode) or self.passed_over.get(folder) == status.st_ino:
            return None  # replaced by a file or a link since its folder was listed; or passed over
        self.visited.add(folder)
        kept = _kept.get(folder)
        unchanged = kept is not None and kept.identity == _identity(status)
        if kept is not None and unchanged and kept.reusable:
            return kept
        # The bound is for what changed: a folder kept but listed too soon after its last change
        # to trust its times is listed again whatever the bound (once more than the last scan).
        refusal = None if unchanged else self._refusal(folder)
        if refusal is not None:
            self.unlisted.append(Unlisted(Path(folder), refusal))
            return None
        listing = self._listed(folder, status)
        if listing is not None:
            self.fresh += listing.entries
            _kept[folder] = listing
        return listing

    def _refusal(self, folder: str) -> str | None:
        """Why `folder` is not to be listed afresh now, if it is not."""
        if len(folder) > MAX_PATH_CHARS:
            return f"its path is longer than {MAX_PATH_CHARS:,} characters"
        if self.fresh >= self.limit:
            return f"the check had listed {self.limit:,} entries afresh"
        if self.keep_at_most is not None and folder not in _kept and len(_kept) >= self.keep_at_most:
            return f"the check keeps at most {self.keep_at_most:,} folders' listings"
        return None

    def _listed(self, folder: str, status: os.stat_result) -> _Listing | None:
        """`folder` listed; or, where it cannot be read or searched, listed once more if the
        caller's remedy made it listable."""
        try:
            return _list(folder)
        except PermissionError as exc:
            if self.make_listable is None or not self.make_listable(Path(folder), status):
                self._failed(folder, exc)
                return None
        except OSError as exc:
            self._failed(folder, exc)
            return None
        try:
            return _list(folder)
        except OSError as exc:
            self._failed(folder, exc)
            return None

    def _failed(self, folder: str, exc: OSError) -> None:
        if isinstance(exc, (FileNotFoundError, NotADirectoryError)) or exc.errno == errno.ELOOP:
            return  # gone, or replaced by a link, since its folder was listed: nothing here now
        reason = "you may not read or search it" if isinstance(exc, PermissionError) else exc.strerror
        self.unlisted.append(Unlisted(Path(folder), reason or str(exc)))

    def forget_the_unvisited(self) -> None:
        """Past the cap, keep only the listings of folders this scan went through (never all
        dropped at once: the scan after a command would then list everything afresh)."""
        if len(_kept) > MAX_KEPT_LISTINGS:
            for folder in list(_kept):
                if folder not in self.visited:
                    _kept.pop(folder, None)


def _list(folder: str) -> _Listing:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not os.access(".", os.X_OK, dir_fd=descriptor):  # names can be read, nothing reached
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), folder)
        status = os.fstat(descriptor)
        with os.scandir(descriptor) as entries:
            return _listing(folder if folder.endswith("/") else folder + "/", entries, status)
    finally:
        os.close(descriptor)


def _listing(prefix: str, entries: Iterator[os.DirEntry[str]], status: os.stat_result) -> _Listing:
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
    changed = max(status.st_mtime_ns, status.st_ctime_ns) / 1e9
    reusable = time.time() - changed > RACY_SECONDS
    identity = _identity(status)
    # A git dir itself (HEAD beside objects and refs, or beside a commondir): the rest is its own.
    if head is not None and (marks & 3 == 3 or marks & 4):
        return _Listing(identity, reusable, count, (), (*found, _control(prefix + head.name, head, "head")))
    return _Listing(identity, reusable, count, tuple(subfolders), tuple(found))


def _identity(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_ino, status.st_mtime_ns, status.st_ctime_ns


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
