"""Listing folders for the checks that look for what a confined process planted — the writable
folders (git_scan.py) and the git dirs git may write (git_dir_state.py) — one way for both: each
folder opened with O_NOFOLLOW and listed from its descriptor, breadth first, its listing kept and
used again while the folder is unchanged, the entries listed afresh counted against a bound, and
every folder not listed returned with why, for the caller to treat as planted: never skipped.

Never writes: a folder that cannot be read or searched is offered to the caller's `make_listable`
(which may give it back its permission). What a listing yields is the caller's `Reader`: the
walk knows folders, not git.

A folder is not listed when
- it cannot be read or searched (its mode, an ACL): git needs only search permission to reach
  what is inside, so what it holds is unknown, not absent;
- its path is longer than MAX_PATH_CHARS: git itself stops at PATH_MAX (4,096), but a folder
  above renamed shorter brings what lies beyond within its reach; the folder is reported whole,
  with a path short enough to be moved or mounted by name;
- the walk has listed `limit` entries afresh, or keeps as many listings as it may.

A listing is used again while its folder is unchanged: the same inode, modification and change
times. Adding, removing or renaming an entry (a link included) changes both times of the folder
it is in, and nothing inside the sandbox can set a change time back (it is the kernel's clock,
and every `utimes` moves it to now). A folder changed within `RACY_SECONDS` of its listing is
listed again next time, since a coarse file-system clock could give a later change the same time
(as git's own index does for racy entries). So a walk after a command costs one `lstat` per folder
plus the listing of the folders that changed — and the bound counts only those.
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
from typing import Any, Generic, TypeVar

# Past this, a folder is reported, not listed: below PATH_MAX by more than a name (255), so the
# folder itself can still be moved or mounted by its path.
MAX_PATH_CHARS = 3_072
RACY_SECONDS = 2.0  # also covers file systems that keep times to the second
MAX_KEPT_LISTINGS = 200_000  # folders, all walks together; ~400 bytes each

T = TypeVar("T")
# Asked about a folder that cannot be read or searched (its lstat given): True when it was made
# listable, and the walk tries once more. The caller's remedy: the walk itself never writes.
MakeListable = Callable[[Path, os.stat_result], bool]


@dataclass(frozen=True)
class Unlisted:
    """A folder the walk did not list, and why, in words for people."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Contents(Generic[T]):
    """What a Reader took from one folder's entries."""

    entries: int  # how many there were
    subfolders: tuple[str, ...]  # those the walk may go on into
    found: tuple[T, ...]


# Reads one folder's entries (its path ending in "/" given, to name them by): pure, never opens.
Reader = Callable[[str, Iterator[os.DirEntry[str]]], Contents[T]]


@dataclass(frozen=True)
class Walked(Generic[T]):
    found: tuple[T, ...]
    unlisted: tuple[Unlisted, ...] = ()
    fresh: int = 0  # entries listed afresh


@dataclass(frozen=True)
class _Listing:
    """What one folder held when it was listed, and how to tell that it has not changed since."""

    identity: tuple[int, int, int]  # inode, modification time, change time (ns)
    reusable: bool  # listed long enough after its last change for the times to tell
    contents: Contents[Any]


# Keyed by the reader's purpose and the folder: a folder read for two purposes is kept twice.
_kept: dict[tuple[str, str], _Listing] = {}


def walk_folders(
    roots: Iterable[str],
    read: Reader[T],
    *,
    purpose: str,
    limit: int,
    enter: Callable[[str], bool] | None = None,
    keep_at_most: int | None = None,
    passed_over: Mapping[str, int] | None = None,
    make_listable: MakeListable | None = None,
) -> Walked[T]:
    """What `read` finds under `roots`, breadth first, and the folders not listed. `purpose`
    names the reader (listings are kept per purpose); `limit`: entries listed afresh; `enter`:
    whether to go into a subfolder `read` offers; `keep_at_most`: no new folder is listed once
    that many listings are kept; `passed_over`: folders (path: inode) not entered while they are
    that same folder."""
    walk = _Walk(purpose, read, limit, keep_at_most, passed_over or {}, make_listable)
    queue = deque(roots)
    while queue:
        contents = walk.visit(queue.popleft())
        if contents is not None:
            walk.found += contents.found
            queue.extend(contents.subfolders if enter is None else filter(enter, contents.subfolders))
    walk.forget_the_unvisited()
    return Walked(tuple(walk.found), tuple(walk.unlisted), walk.fresh)


@dataclass
class _Walk:
    purpose: str
    read: Reader[Any]
    limit: int
    keep_at_most: int | None
    passed_over: Mapping[str, int]
    make_listable: MakeListable | None
    fresh: int = 0  # entries listed afresh so far
    found: list[Any] = field(default_factory=list)
    unlisted: list[Unlisted] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)

    def visit(self, folder: str) -> Contents[Any] | None:
        try:
            status = os.lstat(folder)
        except OSError as exc:
            self._failed(folder, exc)
            return None
        if not stat.S_ISDIR(status.st_mode) or self.passed_over.get(folder) == status.st_ino:
            return None  # replaced by a file or a link since its folder was listed; or passed over
        self.visited.add(folder)
        key = (self.purpose, folder)
        kept = _kept.get(key)
        unchanged = kept is not None and kept.identity == _identity(status)
        if kept is not None and unchanged and kept.reusable:
            return kept.contents
        # The bound is for what changed: a folder kept but listed too soon after its last change
        # to trust its times is listed again whatever the bound (once more than the last walk).
        refusal = None if unchanged else self._refusal(key)
        if refusal is not None:
            self.unlisted.append(Unlisted(Path(folder), refusal))
            return None
        listing = self._listed(folder, status)
        if listing is None:
            return None
        self.fresh += listing.contents.entries
        _kept[key] = listing
        return listing.contents

    def _refusal(self, key: tuple[str, str]) -> str | None:
        """Why the folder is not to be listed afresh now, if it is not."""
        folder = key[1]
        if len(folder) > MAX_PATH_CHARS:
            return f"its path is longer than {MAX_PATH_CHARS:,} characters"
        if self.fresh >= self.limit:
            return f"the check had listed {self.limit:,} entries afresh"
        full = self.keep_at_most is not None and len(_kept) >= self.keep_at_most
        if full and key not in _kept:
            return f"the check keeps at most {self.keep_at_most:,} folders' listings"
        return None

    def _listed(self, folder: str, status: os.stat_result) -> _Listing | None:
        """`folder` listed; or, where it cannot be read or searched, listed once more if the
        caller's remedy made it listable."""
        try:
            return _list(folder, self.read)
        except PermissionError as exc:
            if self.make_listable is None or not self.make_listable(Path(folder), status):
                self._failed(folder, exc)
                return None
        except OSError as exc:
            self._failed(folder, exc)
            return None
        try:
            return _list(folder, self.read)
        except OSError as exc:
            self._failed(folder, exc)
            return None

    def _failed(self, folder: str, exc: OSError) -> None:
        if isinstance(exc, (FileNotFoundError, NotADirectoryError)) or exc.errno == errno.ELOOP:
            return  # gone, or replaced by a link, since its folder was listed: nothing here now
        reason = "you may not read or search it" if isinstance(exc, PermissionError) else exc.strerror
        self.unlisted.append(Unlisted(Path(folder), reason or str(exc)))

    def forget_the_unvisited(self) -> None:
        """Past the cap, keep only the listings of folders this walk went through, of those kept
        for its purpose (never all dropped at once: the walk after a command would then list
        everything afresh)."""
        if len(_kept) > MAX_KEPT_LISTINGS:
            for key in list(_kept):
                if key[0] == self.purpose and key[1] not in self.visited:
                    _kept.pop(key, None)


def _list(folder: str, read: Reader[Any]) -> _Listing:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not os.access(".", os.X_OK, dir_fd=descriptor):  # names can be read, nothing reached
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), folder)
        status = os.fstat(descriptor)
        with os.scandir(descriptor) as entries:
            contents = read(folder if folder.endswith("/") else folder + "/", entries)
    finally:
        os.close(descriptor)
    changed = max(status.st_mtime_ns, status.st_ctime_ns) / 1e9
    return _Listing(_identity(status), time.time() - changed > RACY_SECONDS, contents)


def _identity(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_ino, status.st_mtime_ns, status.st_ctime_ns
