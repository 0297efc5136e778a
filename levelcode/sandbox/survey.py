"""Filling a sandbox policy from what exists on disk: git dirs (also a worktree's or submodule's,
whose `.git` is a file), `.levelcode/`, secret stores, the cache folder (created here, private).

Only existing paths are named: bwrap would have to create a mount point for a missing one. So a
path that appears later (`git init` in a folder that had no `.git`) is protected from the next
command on, not during the command that created it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from levelcode.core.private_files import private_folder
from levelcode.sandbox.locations import GIT_CONTROL_NAMES, LEVELCODE_DIR, PRIVATE_TMP, HostPaths
from levelcode.sandbox.policy import SandboxPolicy

MAX_MODULE_DEPTH = 4  # nested submodules: .git/modules/a/modules/b/…


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
    """A policy that writes `writable_dirs` (those that exist; git control files and `.levelcode/`
    inside them stay read-only) and `own_dir` (created here, private, writable even where it lies
    inside LevelCode's hidden state), sees `readable_dirs` as they are even under /tmp, and starts
    in `workdir`."""
    writable = _unique(d.resolve() for d in writable_dirs if d.is_dir())
    readable = _unique(d.resolve() for d in readable_dirs if d.is_dir())
    pinned: list[Path] = []
    read_only: list[Path] = []
    for root in writable:
        root_pinned, root_protected = protected_paths(root)
        pinned += root_pinned
        read_only += root_protected
    cache = private_folder(own_dir)
    hidden_dirs = _outermost(p.resolve() for p in host.secret_dirs() if p.is_dir())
    hidden_files = _unique(p.resolve() for p in host.secret_files() if _is_file_like(p))
    return SandboxPolicy(
        workdir=workdir,
        readable=tuple(d for d in readable if d.is_relative_to(PRIVATE_TMP)),
        writable=tuple(writable),
        pinned=tuple(_unique(pinned)),
        read_only=tuple(_unique(read_only)),
        hidden_dirs=tuple(hidden_dirs),
        hidden_files=tuple(f for f in hidden_files if not _inside_any(f, hidden_dirs)),
        cache_dir=cache.resolve(),
        network=network,
    )


def protected_paths(root: Path) -> tuple[list[Path], list[Path]]:
    """(git dirs to pin, paths to make read-only) for one writable folder."""
    pinned: list[Path] = []
    read_only = [root / LEVELCODE_DIR] if (root / LEVELCODE_DIR).exists() else []
    dot_git = root / ".git"
    if dot_git.is_file():
        read_only.append(dot_git)  # rewritten, it would point git at a config the sandbox wrote
    git_dir = git_dir_of(root)
    if git_dir is None:
        return pinned, read_only
    if dot_git.is_dir():
        pinned.append(dot_git)
    for gdir in _git_dirs(git_dir):
        read_only += [gdir / name for name in GIT_CONTROL_NAMES if (gdir / name).exists()]
    return pinned, [p.resolve() for p in read_only]


def git_dir_of(root: Path) -> Path | None:
    """The git dir of a working tree: `.git` itself, or where a `.git` file's `gitdir:` points."""
    dot_git = root / ".git"
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


def _git_dirs(git_dir: Path) -> Iterator[Path]:
    """The git dir, the common dir a worktree's points to, and submodules' git dirs under both."""
    dirs = [git_dir]
    common = _common_dir(git_dir)
    if common is not None:
        dirs.append(common)
    for gdir in _unique(d.resolve() for d in dirs):
        yield gdir
        yield from _module_dirs(gdir / "modules", MAX_MODULE_DEPTH)


def _common_dir(git_dir: Path) -> Path | None:
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    target = Path(text) if Path(text).is_absolute() else git_dir / text
    return target if text and target.is_dir() else None


def _module_dirs(modules: Path, depth: int) -> Iterator[Path]:
    if depth <= 0 or not modules.is_dir():
        return
    for entry in sorted(modules.iterdir()):
        if not entry.is_dir():
            continue
        if (entry / "HEAD").exists():
            yield entry
            yield from _module_dirs(entry / "modules", depth - 1)
        else:  # a submodule named with a slash: modules/lib/sub/
            yield from _module_dirs(entry, depth - 1)


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
