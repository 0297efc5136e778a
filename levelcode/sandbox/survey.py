"""Filling a sandbox policy from what exists on disk: the git dirs git may write and the control
paths that stay read-only in them, `.git` files and what the user's git config names inside
the writable folders (git_guard.py), `.levelcode/`, secret stores, the cache folder
(created here, private).

Only existing paths are named: bwrap would have to create a mount point for a missing one. What
appears during a command (a `hooks/pre-commit` where the git dir had no hooks folder, `git init`
in a folder that had no `.git`) is not kept from being written; the check after the command
moves it away (quarantine.py), and from the next command on it would be read-only anyway.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from levelcode.platform.private_files import private_folder, write_private_text
from levelcode.sandbox.git_config import GitConfigSources
from levelcode.sandbox.git_guard import git_protection
from levelcode.sandbox.locations import LEVELCODE_DIR, PRIVATE_TMP, HostPaths
from levelcode.sandbox.policy import SandboxPolicy


def build_policy(
    workspace: Path, extra_dirs: Iterable[Path], host: HostPaths, *, network: bool
) -> SandboxPolicy:
    """A command's policy: it writes the workspace, the added folders and the workspace's cache."""
    workspace = workspace.resolve()
    return confined_policy(
        workspace, [workspace, *extra_dirs], host.cache_dir(workspace), host, network=network
    )


def confined_policy(
    workdir: Path,
    writable_dirs: Iterable[Path],
    own_dir: Path,
    host: HostPaths,
    *,
    network: bool,
    readable_dirs: Iterable[Path] = (),
) -> SandboxPolicy:
    """A policy that writes `writable_dirs` (those that exist; git's control entries, what the
    user's git config names and `.levelcode/` inside them stay read-only), the git dirs of the
    repositories they are or lie in, and `own_dir` (created
    here, private, writable even where it lies inside LevelCode's hidden state), sees
    `readable_dirs` as they are even under /tmp, and starts in `workdir`."""
    writable_named = [d for d in writable_dirs if d.is_dir()]
    readable_named = [d for d in readable_dirs if d.is_dir()]
    writable = _unique(d.resolve() for d in writable_named)
    readable = _unique(d.resolve() for d in readable_named)
    sources = GitConfigSources.from_environment(os.environ, host.home, host.config_home)
    git = git_protection(writable, sources, host.quarantine_dir())
    read_only = [root / LEVELCODE_DIR for root in writable if (root / LEVELCODE_DIR).exists()]
    read_only += git.read_only
    cache = private_folder(own_dir)
    hidden_dirs = _outermost(p.resolve() for p in host.secret_dirs() if p.is_dir())
    hidden_files = _unique(p.resolve() for p in host.secret_files() if _is_file_like(p))
    return SandboxPolicy(
        workdir=workdir,
        readable=tuple(d for d in readable if d.is_relative_to(PRIVATE_TMP)),
        links=tuple(links_in_tmp([*writable_named, *readable_named])),
        writable=tuple(writable),
        git_writable=git.writable,
        anchors=git.anchors,
        read_only=tuple(_unique(read_only)),
        views=tuple((_view_file(host.git_views_dir(), text), shown) for shown, text in git.views),
        hidden_dirs=tuple(hidden_dirs),
        hidden_files=tuple(f for f in hidden_files if not _inside_any(f, hidden_dirs)),
        cache_dir=cache.resolve(),
        network=network,
        git=git.baseline,
    )


def _view_file(folder: Path, text: str) -> Path:
    """A private file holding `text`, named by its digest (written once; the folder is hidden in
    the sandbox, so nothing there can change it)."""
    path = folder / hashlib.sha256(text.encode()).hexdigest()[:32]
    if not path.is_file():
        private_folder(folder)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        write_private_text(partial, text)
        partial.replace(path)
    return path


def links_in_tmp(folders: Iterable[Path]) -> list[tuple[Path, Path]]:
    """The symbolic links under /tmp that `folders`, as named, lead through, each with the
    resolved path it stands for. The private /tmp would lose them, and the folder's name with
    them: a checkout in /tmp whose node_modules links to a shared copy runs
    `node_modules/.bin/...` by that name."""
    found: dict[Path, Path] = {}
    for folder in folders:
        path = Path(os.path.abspath(folder))
        while (link := _first_link_in_tmp(path)) is not None:
            target = link.resolve()
            found[link] = target
            path = target / path.relative_to(link)  # the rest, from where the link leads
    return list(found.items())


def _first_link_in_tmp(path: Path) -> Path | None:
    if not path.is_relative_to(PRIVATE_TMP):
        return None
    for depth in range(len(PRIVATE_TMP.parts) + 1, len(path.parts) + 1):
        prefix = Path(*path.parts[:depth])
        if prefix.is_symlink():
            return prefix
    return None


def _is_file_like(path: Path) -> bool:
    return path.exists() and not path.is_dir()


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths not inside another of them: hiding a folder hides what is in it."""
    found = _unique(paths)
    return [p for p in found if not _inside_any(p, [q for q in found if q != p])]


def _inside_any(path: Path, folders: Iterable[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)
