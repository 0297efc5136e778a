"""Moving what a confined process planted (git_guard.py) out of the writable folders, into a folder
of LevelCode's state that no sandboxed process can see (the state dir is hidden in the sandbox),
closed to other users (0700), keeping each entry's path below its folder so a person can tell
where it came from and move it back after a look.

Never deletes: an entry that cannot be moved stays, and the report says so loudly.
"""

from __future__ import annotations

import errno
import itertools
import os
import shutil
import stat
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.platform.private_files import FOLDER_MODE, private_folder
from levelcode.sandbox.git_controls import Planted
from levelcode.sandbox.git_guard import GitBaseline, planted_since
from levelcode.sandbox.scan_gaps import ListableAgain, relisted_lines, sealed_lines, shown

_BATCHES = itertools.count(1)
# Baselines whose unchecked folders were told: once each, not at every check of a long-running
# process (git_watch.py checks every few seconds).
_TOLD: weakref.WeakValueDictionary[int, GitBaseline] = weakref.WeakValueDictionary()
SUMMARY = (
    "[sandbox] git control files may not be created or changed from the sandbox (a command there "
    "must never decide what your git runs): what was planted was moved to LevelCode's quarantine "
    "folder above. To keep one, look at it first, then move it back"
)


@dataclass(frozen=True)
class Moved:
    planted: Planted
    to: Path | None  # None: it could not be moved
    error: str = ""


def quarantine(planted: Sequence[Planted], roots: Sequence[Path], base: Path) -> list[Moved]:
    """Move each planted entry under a new batch folder of `base`; one inside another planted
    folder goes with it."""
    if not planted:
        return []
    batch = base / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{next(_BATCHES)}"
    moved: list[Moved] = []
    outermost: list[Planted] = []
    for item in sorted(planted, key=lambda p: len(p.path.parts)):
        if not any(item.path.is_relative_to(outer.path) for outer in outermost):
            outermost.append(item)
    for item in outermost:
        if item.path in roots:  # a writable folder itself: never moved, only reported
            moved.append(Moved(item, None, "it is a folder the sandbox was given to write, so it stays"))
            continue
        root = next((r for r in roots if item.path.is_relative_to(r)), item.path.parent)
        target = batch / (root.name or "root") / item.path.relative_to(root)
        moved.append(_move(item, target, batch))
    return sorted(moved, key=lambda m: str(m.planted.path))


def _move(item: Planted, target: Path, batch: Path) -> Moved:
    try:
        private_folder(batch)
        for folder in reversed([target.parent, *target.parent.parents]):
            if folder.is_relative_to(batch):
                folder.mkdir(exist_ok=True, mode=FOLDER_MODE)
        if os.path.lexists(target):
            raise FileExistsError(f"{target} exists")
        _move_from_its_folder(item.path, target)
    except OSError as exc:
        return Moved(item, None, exc.strerror or str(exc))
    return Moved(item, target)


def _move_from_its_folder(path: Path, target: Path) -> None:
    """Move `path` through a descriptor of its folder, checked to be that very folder: a process
    still running in the sandbox may swap a folder above for a link to somewhere else, and what
    lies there is not ours to move."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if os.path.realpath(f"/proc/self/fd/{folder}") != str(path.parent):
            raise OSError(f"its folder {path.parent} was replaced meanwhile")
        try:
            os.rename(path.name, target, src_dir_fd=folder)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            _copy_then_remove(path, target, folder)
    finally:
        os.close(folder)


def _copy_then_remove(path: Path, target: Path, folder: int) -> None:
    """Another file system: copy (links as links), then remove through the folder's descriptor."""
    if stat.S_ISDIR(os.lstat(path.name, dir_fd=folder).st_mode):
        shutil.copytree(path, target, symlinks=True)
        shutil.rmtree(path.name, dir_fd=folder)
    else:
        shutil.copy2(path, target, follow_symlinks=False)
        os.unlink(path.name, dir_fd=folder)


def quarantine_planted(baseline: GitBaseline) -> list[str]:
    """Find what was planted since `baseline`, move it away, and say so: the lines for the tool
    result and the user; [] when nothing was."""
    relisted = ListableAgain()
    planted, _ = planted_since(baseline, relisted)
    moved = quarantine(planted, baseline.roots, baseline.quarantine)
    roots = baseline.roots
    told = _TOLD.get(id(baseline)) is baseline
    _TOLD[id(baseline)] = baseline
    unchecked = () if told else baseline.unchecked
    sealed = [path for path, _ in baseline.sealed]
    return [
        *relisted_lines(relisted.done, roots),
        *report_lines(moved, roots),
        *sealed_lines(unchecked, sealed, roots),
    ]


def report_lines(moved: Sequence[Moved], shown_from: Sequence[Path]) -> list[str]:
    """One line per entry, then what to do; () when nothing was planted."""
    if not moved:
        return []
    lines = [_line(m, shown_from) for m in moved]
    return [*lines, SUMMARY]


def _line(moved: Moved, shown_from: Sequence[Path]) -> str:
    path = shown(moved.planted.path, shown_from)
    if moved.to is None:
        advice = "Look inside it" if moved.planted.path in shown_from else "Delete it"
        return (
            f"[sandbox] COULD NOT MOVE {path} ({moved.planted.why}) out of the workspace: "
            f"{moved.error}. {advice} before you run git there"
        )
    return f"[sandbox] moved {path} ({moved.planted.why}) to {moved.to}"
