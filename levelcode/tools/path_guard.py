"""Keeps every path a file tool touches inside the workspace or a directory the user added.

Load-bearing direction: a path is refused unless its fully resolved form (symlinks followed, `..`
collapsed, `~` expanded) lies under an allowed root. A symlink inside the workspace that points out
is an escape and is refused like an absolute path; one that stays inside works. The resolved form
only says where to go: it is then opened beneath its root's descriptor with no link followed
(rooted_files.py, platform/open_beneath.py), so a link swapped in after the check makes the call fail,
never reach outside.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext

ALLOW_MORE_HINT = (
    "To let LevelCode use another directory, start it with `--add-dir DIR` "
    "or add the directory to `allowedDirectories` in your user settings."
)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def resolved(raw: str, candidate: Path) -> Path:
    """`candidate` (what `raw` names) with its links followed and `..` collapsed. A link that
    turns into a folder while it is read makes realpath fail: a ToolError, not a crash."""
    try:
        return _real(candidate)
    except OSError as exc:
        why = exc.strerror or exc
        said = f"{raw!r} changed while it was being resolved ({why}); nothing was read or written"
        raise ToolError(said) from None


def allowed_roots(ctx: ToolContext) -> tuple[Path, ...]:
    """The workspace and the user's extra directories, resolved, without repeats."""
    return tuple(dict.fromkeys(_real(root) for root in (ctx.workspace, *ctx.extra_roots)))


def is_inside(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether `path` (already resolved) is one of `roots` or lies below one."""
    return any(path.is_relative_to(root) for root in roots)


@dataclass(frozen=True)
class Placed:
    """Where a path a tool was given lies: resolved, under which root, and as the caller wrote it."""

    path: Path  # resolved: for messages, display and approval
    root: Path  # the allowed root (resolved) it lies under: what it is opened beneath
    raw: str

    @property
    def relative(self) -> str:
        """The way down from the root: names only, no link, no `..` (empty for the root itself)."""
        return "/".join(self.path.relative_to(self.root).parts)


def place_in_roots(ctx: ToolContext, raw: str) -> Placed:
    """Where `raw` lies, relative paths taken from the workspace; ToolError if outside."""
    if "\x00" in raw:
        raise ToolError(f"path {raw!r} contains a NUL character")
    expanded = Path(os.path.expanduser(raw))
    candidate = expanded if expanded.is_absolute() else ctx.workspace / expanded
    real = resolved(raw, candidate)
    for root in allowed_roots(ctx):
        if real.is_relative_to(root):
            return Placed(real, root, raw)
    raise ToolError(_outside_message(ctx, raw, candidate, real))


def resolve_in_roots(ctx: ToolContext, raw: str) -> Path:
    """The resolved path `raw` names, relative paths taken from the workspace; ToolError if outside."""
    return place_in_roots(ctx, raw).path


def _outside_message(ctx: ToolContext, raw: str, candidate: Path, resolved: Path) -> str:
    roots = allowed_roots(ctx)
    as_written = tuple(Path(os.path.normpath(root)) for root in (ctx.workspace, *ctx.extra_roots))
    via_link = is_inside(Path(os.path.normpath(candidate)), roots + as_written)
    why = " through a symbolic link" if via_link else ""
    allowed = ", ".join(str(root) for root in roots)
    return (
        f"path {raw!r} resolves{why} to {resolved}, which is outside the directories this session "
        f"may use ({allowed}). {ALLOW_MORE_HINT}"
    )


def display_path(ctx: ToolContext, path: Path) -> str:
    """`path` relative to the workspace when it lies inside it, else absolute."""
    workspace = _real(ctx.workspace)
    if path.is_relative_to(workspace):
        return path.relative_to(workspace).as_posix() or "."
    return str(path)
