"""Which git dirs git may write in the sandbox: the repositories inside the writable folders, and
the repository each writable folder is or lies in — a linked worktree's common dir (its git dir
is inside it), a package folder's repository, a submodule's git dir in its superproject — where
those lie outside. One that lies outside is opened to writes only where it names the working tree
back (a worktree's `gitdir` file, a submodule's `core.worktree`), as git itself set it up: a
`.git` file alone must not open any repository on the disk to writes.

Reads names and small pointer files; never writes and never runs git.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from levelcode.sandbox.git_config import config_entries
from levelcode.sandbox.git_dir_state import small_text
from levelcode.sandbox.git_layout import DOT_GIT, enclosing_work_tree
from levelcode.sandbox.git_new_dirs import gitdir_of_file, pointer, same_file


def guarded_tops(inside: Sequence[Path], roots: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """(the git dirs to keep by the rules of git_controls.py, the git dirs outside `roots` that
    become writable). `inside`: the git dirs found in the writable folders (resolved)."""
    outside = _unique(d for root in roots if (d := repository_outside(root, roots)) is not None)
    writable = [*roots, *outside]
    tops = [*outside, *(_common_or_own(d, writable) for d in inside if _inside(d, writable))]
    return _unique(tops), outside


def repository_outside(root: Path, roots: Sequence[Path]) -> Path | None:
    """The git dir (a common dir for a linked worktree) of the repository `root` is or lies in,
    where it lies outside `roots` and names that working tree back; else None."""
    tree = enclosing_work_tree(root)
    if tree is None:
        return None
    dot_git = tree / DOT_GIT
    if dot_git.is_dir() and not dot_git.is_symlink():
        found: Path | None = dot_git.resolve()
    else:
        found = _linked_back(tree, dot_git)
    return None if found is None or _inside(found, roots) else found


def _linked_back(tree: Path, dot_git: Path) -> Path | None:
    git_dir = gitdir_of_file(dot_git)
    if git_dir is None:
        return None
    common = _common(git_dir)
    if common is not None:  # a linked worktree: its gitdir file names this .git file
        back = small_text(git_dir / "gitdir").strip()
        return common if back and same_file(Path(back), dot_git) else None
    return git_dir if same_file(_core_worktree(git_dir), tree) else None  # a submodule's


def _core_worktree(git_dir: Path) -> Path | None:
    found = [v for k, v in config_entries(small_text(git_dir / "config")) if k == "core.worktree"]
    if not found or not found[-1]:
        return None
    target = Path(found[-1])
    return target if target.is_absolute() else git_dir / target


def _common_or_own(git_dir: Path, writable: Sequence[Path]) -> Path:
    """A worktree's common dir where git may write it (its own git dir lies in it), else itself."""
    common = _common(git_dir)
    return common if common is not None and _inside(common, writable) else git_dir


def _common(git_dir: Path) -> Path | None:
    return pointer(git_dir, "commondir")


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))
