"""What git takes for a repository on disk: a `.git` folder, a `.git` file pointing at a git dir,
a folder that is itself a git dir (a `HEAD` beside `objects/` and `refs/`, or beside a `commondir`
file, as git's own discovery checks), the common dir a worktree's git dir names, and the working
tree a folder lies in.

Reads names and the two small pointer files only; never runs git and never writes.
"""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

DOT_GIT = ".git"
SUBMODULES_FILE = ".gitmodules"
HEAD = "head"  # names are compared in lower case: on a case-insensitive file system git finds HEAD as head


def looks_like_git_dir(lower_names: Container[str]) -> bool:
    """Whether a folder holding these entries (names in lower case) is a git dir to git's discovery."""
    return HEAD in lower_names and (
        ("objects" in lower_names and "refs" in lower_names) or "commondir" in lower_names
    )


def is_git_dir(folder: Path) -> bool:
    try:
        return looks_like_git_dir({entry.name.lower() for entry in folder.iterdir()})
    except OSError:
        return False


def git_dir_of(root: Path) -> Path | None:
    """The git dir of a working tree: `.git` itself, or where a `.git` file's `gitdir:` points."""
    dot_git = root / DOT_GIT
    if dot_git.is_dir():
        return dot_git
    if not dot_git.is_file():
        return None
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first.removeprefix("gitdir:").strip())
    target = target if target.is_absolute() else root / target
    return target if target.is_dir() else None


def common_dir(git_dir: Path) -> Path | None:
    """The common dir a worktree's (or any) git dir names in its `commondir` file, if it exists."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    target = Path(text) if Path(text).is_absolute() else git_dir / text
    return target if text and target.is_dir() else None


def pointed_git_dirs(work_tree: Path) -> list[Path]:
    """The git dirs a working tree's `.git` leads to: its git dir and that one's common dir."""
    git_dir = git_dir_of(work_tree)
    if git_dir is None:
        return []
    common = common_dir(git_dir)
    return [git_dir] if common is None else [git_dir, common]


def enclosing_work_tree(folder: Path) -> Path | None:
    """The nearest folder, `folder` itself or above it, holding a `.git` (as git's discovery walks up)."""
    for candidate in (folder, *folder.parents):
        if (candidate / DOT_GIT).exists():
            return candidate
    return None
