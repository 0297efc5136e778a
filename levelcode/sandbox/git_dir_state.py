"""The git dirs git may write in the sandbox, each kept by the rules of git_controls.py. Before a
confined process: what each one's control paths, linked worktrees, submodule git dirs, links and
rebase state are, and the folders the walk for links could not list (`survey_git_dirs`), and the
mounts that keep them (`git_dir_mounts`). After it, or while it runs: what changed, each change
an entry for quarantine.py, and the folders not listed, which the caller treats as planted
(`git_dir_changes`).

Reads only (lstat, listings, a few small files opened without following a link or blocking on a
pipe); never writes and never runs git.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.folder_listings import Unlisted, Walked
from levelcode.sandbox.git_controls import (
    CONTROL_PATHS,
    LINK,
    MODULES,
    NEW_MODULE,
    NEW_WORKTREE,
    OPTS_STRATEGY,
    REBASE_STRATEGY,
    REBASE_TODO,
    SEQUENCER_OPTS,
    STRATEGY,
    TODO_EXEC,
    WORKTREES,
    Planted,
    config_without_worktree,
    exec_lines,
    foreign_strategy,
    strategy_of_opts,
)
from levelcode.sandbox.git_dir_links import LinkWalks
from levelcode.sandbox.git_layout import is_git_dir
from levelcode.sandbox.git_scan import Kind, path_identity

MAX_MODULE_DEPTH = 8  # a submodule named a/b/c keeps its git dir in modules/a/b/c
MAX_STATE_BYTES = 1_000_000  # a rebase todo or options file read whole up to this

Identity = tuple[Kind, int] | None


@dataclass(frozen=True)
class Control:
    path: Path
    does: str  # what a planted one would make git do
    identity: Identity  # what is at the path, not following a last link
    target: Identity  # what a link there leads to (None: not a link, or leads nowhere)


@dataclass(frozen=True)
class GitDirState:
    git_dir: Path
    controls: tuple[Control, ...]
    worktrees: frozenset[str]  # names under worktrees/
    modules: frozenset[Path]  # submodule git dirs under modules/
    links: frozenset[tuple[Path, int]]  # links and special files (objects/ aside)
    todo_exec: frozenset[str]  # exec lines of a rebase's todo
    strategy: str | None  # a rebase's merge strategy
    opts_strategy: str | None  # a cherry-pick or revert's merge strategy
    unlisted: tuple[Unlisted, ...]  # folders the walk for links did not list
    config_view: str | None = None  # a submodule's: its config as the sandbox shows it


def survey_git_dirs(tops: Sequence[Path], limit: int) -> tuple[list[GitDirState], list[Path]]:
    """Each of `tops` (git dirs) with the git dirs it holds — its linked worktrees' and its
    submodules', recursively — at most `limit` in all; and the git dirs left over past it."""
    found: list[GitDirState] = []
    walks = LinkWalks()
    queue = deque(tops)
    seen: set[Path] = set()
    while queue:
        git_dir = queue.popleft()
        if git_dir in seen:
            continue
        if len(found) >= limit:
            return found, [git_dir, *(d for d in queue if d not in seen)]
        seen.add(git_dir)
        state = survey_git_dir(git_dir, walks, submodule=_in_modules(git_dir))
        found.append(state)
        queue.extend(git_dir / WORKTREES / name for name in sorted(state.worktrees))
        queue.extend(sorted(state.modules))
    return found, []


def survey_git_dir(git_dir: Path, walks: LinkWalks, *, submodule: bool = False) -> GitDirState:
    walked = walks.links_in(git_dir)  # first: what it cannot list is not taken for empty below
    view = config_without_worktree(small_text(git_dir / "config")) if submodule else None
    return GitDirState(
        git_dir,
        tuple(_control(git_dir / row.path, row.does) for row in CONTROL_PATHS),
        frozenset(_subfolders(git_dir / WORKTREES)),
        frozenset(_module_git_dirs(git_dir / MODULES, 0)),
        _paths(walked),
        exec_lines(small_text(git_dir / REBASE_TODO)),
        _strategy(git_dir),
        strategy_of_opts(small_text(git_dir / SEQUENCER_OPTS)),
        walked.unlisted,
        view,
    )


def _in_modules(git_dir: Path) -> bool:
    """Whether `git_dir` is a submodule's: it lies in the `modules/` folder of a git dir."""
    return any(folder.name == MODULES and is_git_dir(folder.parent) for folder in git_dir.parents)


def _control(path: Path, does: str) -> Control:
    identity = path_identity(path)
    return Control(path, does, identity, _target(path) if identity and identity[0] == "link" else None)


def _target(path: Path) -> Identity:
    try:
        found = path.stat()
    except OSError:
        return None
    return ("dir" if stat.S_ISDIR(found.st_mode) else "file", found.st_ino)


def _subfolders(folder: Path) -> Iterator[str]:
    try:
        with os.scandir(folder) as listing:
            yield from (e.name for e in listing if e.is_dir(follow_symlinks=False))
    except OSError:
        return


def _module_git_dirs(folder: Path, depth: int) -> Iterator[Path]:
    if depth > MAX_MODULE_DEPTH:
        return
    for name in _subfolders(folder):
        inside = folder / name
        if is_git_dir(inside):
            yield inside
        else:  # a submodule name with a slash: its git dir is deeper
            yield from _module_git_dirs(inside, depth + 1)


def _paths(walked: Walked[tuple[str, int]]) -> frozenset[tuple[Path, int]]:
    return frozenset((Path(path), inode) for path, inode in walked.found)


def _strategy(git_dir: Path) -> str | None:
    text = small_text(git_dir / REBASE_STRATEGY).strip()
    return text or None


def small_text(path: Path) -> str:
    """A small file's text; "" when it is missing, a link, not a regular file, or unreadable. Never
    blocks: a pipe planted in its place is not waited on."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        handle = os.open(path, flags)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return ""
        return os.read(handle, MAX_STATE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
    finally:
        os.close(handle)


# --- the mounts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GitDirMounts:
    # Each git dir, and the folders between it and what is kept read-only in it or a git dir it
    # holds, bound onto themselves (writable: a mount point cannot be renamed or removed, so
    # nothing above an island can be swapped).
    anchors: list[Path]
    read_only: list[Path]  # each control path that exists (for a link, what it leads to)
    views: list[tuple[Path, str]]  # a config shown read-only as this text instead (a submodule's)


def git_dir_mounts(states: Sequence[GitDirState]) -> GitDirMounts:
    """The mounts that keep `states`' git dirs as git_controls.py says."""
    anchors: list[Path] = []
    read_only: list[Path] = []
    views: list[tuple[Path, str]] = []
    git_dirs = [state.git_dir for state in states]
    for state in states:
        anchors.append(state.git_dir)
        outer = [d for d in git_dirs if d != state.git_dir and state.git_dir.is_relative_to(d)]
        if outer:
            anchors += _between(max(outer, key=lambda d: len(d.parts)), state.git_dir)
        for control in state.controls:
            bound = _bound(control)
            if bound is None:
                continue
            anchors += _between(state.git_dir, bound.parent)
            if state.config_view is not None and bound == state.git_dir / "config":
                views.append((bound, state.config_view))
            else:
                read_only.append(bound)
    ordered = sorted(dict.fromkeys(a for a in anchors if _is_real_folder(a)), key=lambda a: len(a.parts))
    return GitDirMounts(ordered, list(dict.fromkeys(read_only)), views)


def _bound(control: Control) -> Path | None:
    if control.identity is None or control.identity[0] == "other":
        return None
    if control.identity[0] != "link":
        return control.path
    return control.path.resolve() if control.target is not None else None


def _between(top: Path, folder: Path) -> list[Path]:
    """The folders below `top` down to `folder` (included), outermost first; none when `folder`
    does not lie below `top`."""
    if folder == top or not folder.is_relative_to(top):
        return []
    parts = folder.relative_to(top).parts
    return [top.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def _is_real_folder(path: Path) -> bool:
    identity = path_identity(path)
    return identity is not None and identity[0] == "dir"


# --- what changed ------------------------------------------------------------------------------


# Whether a linked worktree that appeared in a common dir is one git itself made (git_new_dirs.py).
AcceptWorktree = Callable[[Path, Path], bool]


def git_dir_changes(
    states: Sequence[GitDirState], accept_worktree: AcceptWorktree, walks: LinkWalks
) -> tuple[list[Planted], list[Unlisted]]:
    """What a process changed in the git dirs of `states` that git would act on; and the folders
    there the walk for links could not list, which hold what nobody checked."""
    planted: list[Planted] = []
    unlisted: list[Unlisted] = []
    for state in states:
        walked = walks.links_in(state.git_dir)  # first: it may make a folder listable again
        unlisted += walked.unlisted
        planted += [Planted(path, LINK) for path, _ in sorted(_paths(walked) - state.links)]
        planted += _changed_controls(state)
        planted += _new_worktrees(state, accept_worktree)
        planted += [
            Planted(m, NEW_MODULE)
            for m in _module_git_dirs(state.git_dir / MODULES, 0)
            if m not in state.modules
        ]
        planted += rebase_changes(state.git_dir, state)
    return planted, unlisted


def _changed_controls(state: GitDirState) -> Iterable[Planted]:
    for control in state.controls:
        now = path_identity(control.path)
        if now is None:
            continue
        target = _target(control.path) if now[0] == "link" else None
        if now != control.identity or target != control.target:
            yield Planted(control.path, control.does)


def _new_worktrees(state: GitDirState, accept: AcceptWorktree) -> Iterable[Planted]:
    for name in sorted(set(_subfolders(state.git_dir / WORKTREES)) - state.worktrees):
        worktree = state.git_dir / WORKTREES / name
        if not accept(worktree, state.git_dir):
            yield Planted(worktree, NEW_WORKTREE)


def rebase_changes(git_dir: Path, before: GitDirState | None) -> list[Planted]:
    """A rebase todo with exec lines it did not have `before` (None: a git dir that is new), or a
    merge strategy that is not git's own and was not there before."""
    found: list[Planted] = []
    if exec_lines(small_text(git_dir / REBASE_TODO)) - (before.todo_exec if before else frozenset()):
        found.append(Planted(git_dir / REBASE_TODO, TODO_EXEC))
    strategy = _strategy(git_dir)
    if foreign_strategy(strategy) and strategy != (before.strategy if before else None):
        found.append(Planted(git_dir / REBASE_STRATEGY, STRATEGY.format(name=strategy)))
    opts = strategy_of_opts(small_text(git_dir / SEQUENCER_OPTS))
    if foreign_strategy(opts) and opts != (before.opts_strategy if before else None):
        found.append(Planted(git_dir / SEQUENCER_OPTS, OPTS_STRATEGY.format(name=opts)))
    return found
