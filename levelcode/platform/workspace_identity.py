"""Which repository a workspace belongs to, so that what the user turns off "here" holds in every
worktree of it (`git worktree add`) and in no other repository.

The identity is the repository's git common directory — the `.git` folder every worktree of one
clone shares — resolved, plus the workspace's folder within its worktree (`.` at the top). A
folder outside git is known by its resolved path. A linked worktree's `.git` file is believed only
when the folder it names points back at it (git writes that back-link): a repository cannot borrow
another's identity by planting `.git` with `gitdir: /path/to/yours`.

Reads a few small files; never runs git, never writes.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_LINK_BYTES = 4096


def workspace_identity(workspace: Path) -> str:
    """`git:/abs/repo/.git:sub/folder` for a folder in a git worktree, `path:/abs/folder` otherwise."""
    folder = Path(os.path.realpath(workspace))
    for top in (folder, *folder.parents):
        dot_git = top / ".git"
        if not _exists(dot_git):
            continue
        common = _common_dir(dot_git)
        if common is None:
            break
        within = folder.relative_to(top).as_posix()
        return f"git:{common}:{within}"
    return f"path:{folder}"


def describe_identity(identity: str) -> str:
    """Where a per-workspace choice holds, in words: every worktree of the repository, or a folder."""
    kind, _, rest = identity.partition(":")
    if kind == "git":
        common, _, within = rest.rpartition(":")
        where = "every worktree" if within == "." else f"{within}/ in every worktree"
        return f"{where} of the repository whose git folder is {common}"
    return f"{rest} (not in a git repository: this folder alone)"


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _common_dir(dot_git: Path) -> Path | None:
    """The git common directory `dot_git` leads to; None when it cannot be trusted to lead there."""
    if dot_git.is_dir():
        return Path(os.path.realpath(dot_git))
    linked = _named_dir(dot_git, "gitdir: ")
    if linked is None or not linked.is_dir():
        return None
    back = _named_dir(linked / "gitdir", "")
    if back is None or os.path.realpath(back) != os.path.realpath(dot_git):
        return None  # not a worktree git made: a `.git` file naming someone else's repository
    common = _named_dir(linked / "commondir", "")
    return Path(os.path.realpath(common)) if common is not None else Path(os.path.realpath(linked))


def _named_dir(file: Path, prefix: str) -> Path | None:
    """The path written in `file` after `prefix`, relative to the file's folder; None if unreadable."""
    try:
        with file.open("rb") as handle:
            text = handle.read(MAX_LINK_BYTES).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith(prefix) or not text[len(prefix) :].strip():
        return None
    return file.parent / text[len(prefix) :].strip()
