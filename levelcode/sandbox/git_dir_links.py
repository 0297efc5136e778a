"""The links and special files in the git dirs git may write — git writes through a link
(`COMMIT_EDITMSG`, reflogs, `FETCH_HEAD`) into whatever it points at — found by the walk every
check takes (folder_listings.py), and the folders of a git dir that walk could not list: the
caller keeps those read-only for a command (before it) or treats them as planted (after it),
never as empty. One bound for all the git dirs of a check, counting only what is listed afresh.

Reads only (lstat, listings); never writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.sandbox.folder_listings import Contents, MakeListable, Walked, walk_folders
from levelcode.sandbox.git_controls import MODULES, OBJECTS, WORKTREES
from levelcode.sandbox.git_layout import is_git_dir

# Entries listed afresh per check, all git dirs together (loose objects aside); apart from the
# writable folders' own bound (git_scan.py), so a big workspace never leaves its git dirs unchecked.
MAX_GIT_DIR_ENTRIES = 1_000_000
PURPOSE = "links in git dirs"


@dataclass
class LinkWalks:
    """The walks of one check through the git dirs: what one lists afresh is taken from the bound
    of the next; `passed_over` (path: inode) were read-only throughout; `make_listable` is the
    remedy for a folder that cannot be listed (after a command only)."""

    passed_over: Mapping[str, int] = field(default_factory=dict)
    make_listable: MakeListable | None = None
    left: int = field(default_factory=lambda: MAX_GIT_DIR_ENTRIES)

    def links_in(self, git_dir: Path) -> Walked[tuple[str, int]]:
        """The links and special files in `git_dir` (path, inode), and the folders not listed."""
        walked = walk_folders(
            [str(git_dir)],
            _links,
            purpose=PURPOSE,
            limit=self.left,
            enter=_entered_in(str(git_dir)),
            passed_over=self.passed_over,
            make_listable=self.make_listable,
        )
        self.left = max(0, self.left - walked.fresh)
        return walked


def _links(prefix: str, entries: Iterator[os.DirEntry[str]]) -> Contents[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    subfolders: list[str] = []
    count = 0
    for entry in entries:
        count += 1
        if entry.is_dir(follow_symlinks=False):
            subfolders.append(prefix + entry.name)
        elif entry.is_symlink() or not entry.is_file(follow_symlinks=False):
            found.append((prefix + entry.name, entry.inode()))
    return Contents(count, tuple(subfolders), tuple(found))


def _entered_in(top: str) -> Callable[[str], bool]:
    """Which folders of the git dir `top` the walk goes into: not the fan-out folders of objects/
    (loose objects are only read, never written through), nor the git dirs it holds (worktrees/NAME,
    a submodule's in modules/: each walked as a git dir of its own) — but worktrees/ and modules/
    themselves, and a folder in modules/ above a submodule's git dir (a name with a slash)."""
    objects, worktrees, modules = (os.path.join(top, name) for name in (OBJECTS, WORKTREES, MODULES))

    def enter(folder: str) -> bool:
        parent, _, name = folder.rpartition("/")
        if parent == objects:
            return name == "info"
        if parent == worktrees:
            return False
        return not folder.startswith(modules + "/") or not is_git_dir(Path(folder))

    return enter
