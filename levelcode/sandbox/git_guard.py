"""No git control entry a confined process writes is left for the user's git to run.

Before a confined process starts, `git_protection` says what git may write and what stays
read-only. Git writes the git dirs of the repositories inside the writable folders and of the one
each writable folder is or lies in (git_repositories.py) — objects, refs, the index, HEAD — while
what decides what git runs stays read-only inside them (git_controls.py, git_dir_state.py): each
existing control path is a read-only mount, each git dir and the folders above its islands are
mount points (neither can be renamed, replaced or removed). Also read-only: every `.git` file,
and what the user's git configuration names there (config and include files, hooks folders,
programs); git dirs past the bound, whole; and every folder the scan could not list (scan_gaps.py).
(`.gitmodules` is not: git checks it out, and runs nothing it names — an `update = !command`
there is refused.)

It records the baseline: what those entries and paths are now. After the process ends (and, for
long-running ones, while it runs), `planted_since` finds what is new since then: a `.git` or a
git dir that was not there (but a linked worktree `git worktree add` made, or a repository
`git init` or `git clone` made: git_new_dirs.py), a named or control path that appeared or was
swapped (a parent folder renamed away and recreated), a linked worktree or submodule git dir
that git did not make, a link in a git dir, a rebase todo with new exec lines — and every folder
the scan could not list, what was read-only throughout passed over. The caller moves those out
of the workspace (quarantine.py).

A mount cannot forbid creating a name, nor stop a folder above a read-only island from being
renamed; this check is what covers both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.folder_listings import MAX_KEPT_LISTINGS, MakeListable, Unlisted
from levelcode.sandbox.git_config import GitConfigSources, named_paths
from levelcode.sandbox.git_controls import Planted
from levelcode.sandbox.git_dir_links import LinkWalks
from levelcode.sandbox.git_dir_state import (
    GitDirState,
    git_dir_changes,
    git_dir_mounts,
    survey_git_dirs,
)
from levelcode.sandbox.git_layout import enclosing_work_tree, pointed_git_dirs
from levelcode.sandbox.git_new_dirs import canonical_worktree, fresh_repository, made_by_worktree_add
from levelcode.sandbox.git_repositories import guarded_tops
from levelcode.sandbox.git_scan import (
    ControlEntry,
    GitScan,
    Kind,
    git_dirs,
    path_identity,
    scan_git_control,
)
from levelcode.sandbox.scan_gaps import sealed_folders

MAX_CONFIGURED_REPOSITORIES = 32  # repositories whose own config is read for hooks and programs
MAX_GUARDED_GIT_DIRS = 64  # git dirs git may write, each kept by the rules; past it, read-only whole

WHY = {
    "git": "a git repository or a pointer to one: git would run what its config and hooks say",
    "head": "a folder made into a git dir: git would run what its config and hooks say",
    "config": "a config file your git reads",
    "folder": "a hooks or templates folder your git config names",
    "program": "a program your git config runs",
    "unlisted": "a folder the check for planted git files could not list: {reason}; what it holds is unknown",
}


@dataclass(frozen=True)
class NamedPath:
    path: Path
    identity: tuple[Kind, int] | None  # what was there (None: nothing)
    role: str  # a key of WHY


@dataclass(frozen=True)
class GitBaseline:
    """The control entries and named paths under the writable folders when a process started."""

    roots: tuple[Path, ...]
    known: frozenset[tuple[Path, Kind, int]]
    git_dir_inodes: frozenset[int]  # a known git dir is the user's wherever a rename moved it
    named: tuple[NamedPath, ...]
    unchecked: tuple[Unlisted, ...]  # what the walks (the writable folders', the git dirs') did not list
    sealed: tuple[tuple[Path, int], ...]  # the folders (and inodes) keeping it read-only
    quarantine: Path  # where what is planted goes
    git_dirs: tuple[GitDirState, ...] = ()  # the git dirs git may write, as they were


@dataclass(frozen=True)
class GitProtection:
    read_only: tuple[Path, ...]
    baseline: GitBaseline
    writable: tuple[Path, ...] = ()  # git dirs outside the writable folders that git may write
    anchors: tuple[Path, ...] = ()  # folders bound onto themselves so they stay where they are
    views: tuple[tuple[Path, str], ...] = ()  # configs shown read-only as this text (submodules')


def git_protection(roots: Sequence[Path], sources: GitConfigSources, quarantine: Path) -> GitProtection:
    """What stays read-only under `roots` (resolved writable folders), and the baseline."""
    scan = scan_git_control(roots, keep_at_most=MAX_KEPT_LISTINGS)
    dirs = _unique([*git_dirs(scan), *_pointed(scan, roots)])
    trees = _unique([*roots, *(e.path.parent for e in scan.entries if e.role == "git")])
    named = named_in_roots(roots, sources, dirs[:MAX_CONFIGURED_REPOSITORIES], trees)
    tops, outside = guarded_tops([d for d in dirs if _inside(d, roots)], roots)
    states, left_over = survey_git_dirs(tops, MAX_GUARDED_GIT_DIRS)
    mounts = git_dir_mounts(states)
    guarded = {state.git_dir for state in states}
    # What was not listed stays read-only for the command: lifted (past MAX_SEALED) no higher than
    # a writable folder or a git dir.
    unchecked = (*scan.unlisted, *(u for state in states for u in state.unlisted))
    sealed = sealed_folders(unchecked, [*roots, *guarded])
    read_only = [d for d in (*dirs, *left_over) if _inside(d, [*roots, *outside]) and d not in guarded]
    read_only += mounts.read_only
    read_only += [e.path for e in scan.entries if e.kind == "file" and e.role == "git"]
    read_only += [n.path for n in named if n.identity is not None and n.identity[0] in _BOUND_KINDS[n.role]]
    read_only += [path for path, _ in sealed]
    baseline = GitBaseline(
        tuple(roots),
        frozenset((e.path, e.kind, e.inode) for e in scan.entries),
        frozenset(_git_dir_inodes(scan)),
        tuple(named),
        unchecked,
        tuple(sealed),
        quarantine,
        tuple(states),
    )
    viewed = {path for path, _ in mounts.views}
    kept = tuple(p for p in _outermost(read_only) if p not in viewed)
    return GitProtection(kept, baseline, tuple(outside), tuple(mounts.anchors), tuple(mounts.views))


# What kind of entry a named path may be to be kept read-only: a program is a file (a folder named
# in a command line is an argument, and binding it would make a whole tree read-only).
_BOUND_KINDS: dict[str, tuple[Kind, ...]] = {
    "config": ("file",),
    "folder": ("dir", "file"),
    "program": ("file",),
}


def _pointed(scan: GitScan, roots: Sequence[Path]) -> list[Path]:
    """The git dirs `.git` files lead to, and those of the repository each root lies in."""
    files = [e.path.parent for e in scan.entries if e.role == "git" and e.kind != "dir"]
    found = [d.resolve() for tree in files for d in pointed_git_dirs(tree)]
    return found + [d for root in roots for d in _enclosing_git_dirs(root)]


def _enclosing_git_dirs(root: Path) -> list[Path]:
    top = enclosing_work_tree(root)
    return [] if top is None else [d.resolve() for d in pointed_git_dirs(top)]


def named_in_roots(
    roots: Sequence[Path], sources: GitConfigSources, dirs: Sequence[Path] = (), trees: Sequence[Path] = ()
) -> list[NamedPath]:
    """What the user's git config — and that of the repositories `roots` lie in, and of `dirs` —
    names inside `roots` (but never a root itself or a folder holding one); relative programs and
    folders taken from `trees`, `roots` and the work trees the roots lie in."""
    dirs = [*dirs, *(d for root in roots for d in _enclosing_git_dirs(root))]
    enclosing = [t for t in (enclosing_work_tree(r) for r in roots) if t is not None]
    named = named_paths(sources, _unique(dirs), _unique([*trees, *roots, *enclosing]))
    found: list[NamedPath] = []
    for role, paths in (
        ("config", named.config_files),
        ("folder", named.folders),
        ("program", named.programs),
    ):
        for path in _unique(_absolute(p) for p in paths):
            if _inside(path, roots) and not any(_inside(root, [path]) for root in roots):
                found.append(NamedPath(path, path_identity(path), role))
    return found


def _absolute(path: Path) -> Path:
    """`path` with its folders' symbolic links resolved, but not a last one (what git would open)."""
    return path.parent.resolve() / path.name


def _git_dir_inodes(scan: GitScan) -> Iterable[int]:
    for entry in scan.entries:
        if entry.role == "git" and entry.kind == "dir":
            yield entry.inode
        elif entry.role == "head":
            identity = path_identity(entry.path.parent)
            if identity is not None:
                yield identity[1]


def planted_since(
    baseline: GitBaseline, make_listable: MakeListable | None = None
) -> tuple[list[Planted], GitScan]:
    """What is new under the baseline's folders and in its git dirs, and every folder either walk
    could not list (what was read-only throughout is passed over); and the scan that found it."""
    sealed = {str(path): inode for path, inode in baseline.sealed}
    scan = scan_git_control(baseline.roots, passed_over=sealed, make_listable=make_listable)
    walks = LinkWalks(sealed, make_listable)
    roots = baseline.roots
    planted, unlisted = git_dir_changes(
        baseline.git_dirs, lambda tree, common: canonical_worktree(tree, common, roots, walks), walks
    )
    found = [e for e in scan.entries if e.role != "modules"]  # git writes .gitmodules; it runs nothing
    planted += [Planted(e.path, WHY[e.role]) for e in found if not _known_or_made(e, baseline, walks)]
    for named in baseline.named:
        now = path_identity(named.path)
        if now is not None and now != named.identity:
            planted.append(Planted(named.path, WHY[named.role]))
    unchecked = (*scan.unlisted, *unlisted)
    planted += [Planted(u.path, WHY["unlisted"].format(reason=u.reason)) for u in unchecked]
    return planted, scan


def _known_or_made(entry: ControlEntry, baseline: GitBaseline, walks: LinkWalks) -> bool:
    """Known from the baseline; or the `.git` file of a worktree `git worktree add` made, or a
    repository `git init` or `git clone` made (git_new_dirs.py)."""
    if _known(entry, baseline):
        return True
    if entry.role == "git" and entry.kind == "file":
        return made_by_worktree_add(entry.path, baseline.git_dirs, baseline.roots, walks)
    return entry.git_dir is not None and fresh_repository(entry.git_dir, walks)


def _known(entry: ControlEntry, baseline: GitBaseline) -> bool:
    if (entry.path, entry.kind, entry.inode) in baseline.known:
        return True
    git_dir = entry.git_dir
    if git_dir is None:
        return False
    identity = path_identity(git_dir)
    return identity is not None and identity[0] == "dir" and identity[1] in baseline.git_dir_inodes


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _outermost(paths: Iterable[Path]) -> list[Path]:
    found = _unique(paths)
    return [p for p in found if not any(p != q and p.is_relative_to(q) for q in found)]
