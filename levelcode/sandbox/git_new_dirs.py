"""Which new git dirs a confined process may leave: a linked worktree `git worktree add` made in
the writable folders — its git dir under a known repository's `worktrees/`, whose `commondir`
leads back to that repository and whose `gitdir` names the new checkout's `.git` file, which
leads back to it — and a repository `git init` or `git clone` made — whose config holds only
what those write, whose hooks are git's samples — each holding nothing else git acts on.
Anything else new is moved away.

Reads only (lstat, small files opened without following a link); never writes, never runs git.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from levelcode.sandbox.git_controls import CONTROL_PATHS, MODULES, WORKTREES, fresh_config
from levelcode.sandbox.git_dir_links import LinkWalks
from levelcode.sandbox.git_dir_state import GitDirState, rebase_changes, small_text
from levelcode.sandbox.git_scan import path_identity

WORKTREE_POINTERS = frozenset({"commondir", "gitdir"})
TEMPLATE_PATHS = frozenset({"config", "hooks", "branches"})  # what `git init` copies in, checked below
SAMPLE = ".sample"  # git's template hooks: named so that git never runs them


def canonical_worktree(worktree: Path, common: Path, roots: Sequence[Path], walks: LinkWalks) -> bool:
    """Whether `worktree` (a folder under `common`/worktrees/) is one `git worktree add` made for
    a checkout inside `roots`, and holds nothing else git acts on (`walks`: the check's walks for
    links)."""
    if not same_file(pointer(worktree, "commondir"), common):
        return False
    dot_git = Path(small_text(worktree / "gitdir").strip())
    if not dot_git.is_absolute() or not _inside(dot_git.parent, roots):
        return False
    if not same_file(gitdir_of_file(dot_git), worktree):
        return False
    return clean_new_git_dir(worktree, WORKTREE_POINTERS, walks)


def made_by_worktree_add(
    dot_git: Path, states: Sequence[GitDirState], roots: Sequence[Path], walks: LinkWalks
) -> bool:
    """Whether a new `.git` file is the checkout side of such a worktree."""
    worktree = gitdir_of_file(dot_git)
    if worktree is None or worktree.parent.name != WORKTREES:
        return False
    common = worktree.parent.parent
    known = any(same_file(common, state.git_dir) for state in states)
    back = Path(small_text(worktree / "gitdir").strip())
    return known and same_file(back, dot_git) and canonical_worktree(worktree, common, roots, walks)


def fresh_repository(git_dir: Path, walks: LinkWalks) -> bool:
    """Whether a new git dir is one `git init` or `git clone` made: a config holding only what they
    write, hooks that are all samples, no old-style remotes, nothing else git acts on."""
    config = path_identity(git_dir / "config")
    if config is None or config[0] != "file" or not fresh_config(small_text(git_dir / "config")):
        return False
    hooks = _entries(git_dir / "hooks")
    if hooks is None or any(kind != "file" or not name.endswith(SAMPLE) for name, kind in hooks):
        return False
    return _entries(git_dir / "branches") == [] and clean_new_git_dir(git_dir, TEMPLATE_PATHS, walks)


def _entries(folder: Path) -> list[tuple[str, str]] | None:
    """The names and kinds (file or other) in `folder`: [] when it is missing, None when it is not
    a folder or cannot be listed."""
    identity = path_identity(folder)
    if identity is None:
        return []
    if identity[0] != "dir":
        return None
    try:
        with os.scandir(folder) as listing:
            return [(e.name, "file" if e.is_file(follow_symlinks=False) else "other") for e in listing]
    except OSError:
        return None


def clean_new_git_dir(git_dir: Path, allowed: Collection[str], walks: LinkWalks) -> bool:
    """A new git dir holds no control path but `allowed` ones, no link or special file, no folder
    the walk for links could not list, no git dir of its own below, and no rebase state that
    would run something."""
    if any(path_identity(git_dir / row.path) is not None for row in CONTROL_PATHS if row.path not in allowed):
        return False
    if any(path_identity(git_dir / name) is not None for name in (WORKTREES, MODULES)):
        return False
    walked = walks.links_in(git_dir)
    return not walked.unlisted and not walked.found and not rebase_changes(git_dir, None)


def gitdir_of_file(dot_git: Path) -> Path | None:
    """Where a `.git` file (a regular file, not a link) points, resolved."""
    identity = path_identity(dot_git)
    if identity is None or identity[0] != "file":
        return None
    first = small_text(dot_git).partition("\n")[0]
    if not first.startswith("gitdir:"):
        return None
    return _resolved(dot_git.parent, first.removeprefix("gitdir:").strip())


def pointer(git_dir: Path, name: str) -> Path | None:
    """The folder a pointer file of `git_dir` (`commondir`) names, resolved; None if none."""
    return _resolved(git_dir, small_text(git_dir / name).strip())


def _resolved(base: Path, text: str) -> Path | None:
    if not text:
        return None
    target = Path(text) if Path(text).is_absolute() else base / text
    return target.resolve() if target.is_dir() else None


def same_file(first: Path | None, second: Path | None) -> bool:
    """Whether both name the same file (False when either is None or gone)."""
    if first is None or second is None:
        return False
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved.is_relative_to(root) for root in roots)
