"""Keeps every path a file tool touches inside the workspace or a directory the user added.

Load-bearing direction: a path is refused unless its fully resolved form (symlinks followed, `..`
collapsed, `~` expanded) lies under an allowed root. A symlink inside the workspace that points out
is an escape and is refused like an absolute path. The guard checks before use; a link swapped in
between check and use by another process is outside what it can promise.
"""

from __future__ import annotations

import os
from pathlib import Path

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext

ALLOW_MORE_HINT = (
    "To let LevelCode use another directory, start it with `--add-dir DIR` "
    "or add the directory to `allowedDirectories` in your user settings."
)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def allowed_roots(ctx: ToolContext) -> tuple[Path, ...]:
    """The workspace and the user's extra directories, resolved, without repeats."""
    return tuple(dict.fromkeys(_real(root) for root in (ctx.workspace, *ctx.extra_roots)))


def is_inside(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether `path` (already resolved) is one of `roots` or lies below one."""
    return any(path.is_relative_to(root) for root in roots)


def resolve_in_roots(ctx: ToolContext, raw: str) -> Path:
    """The resolved path `raw` names, relative paths taken from the workspace; ToolError if outside."""
    if "\x00" in raw:
        raise ToolError(f"path {raw!r} contains a NUL character")
    expanded = Path(os.path.expanduser(raw))
    candidate = expanded if expanded.is_absolute() else ctx.workspace / expanded
    resolved = _real(candidate)
    roots = allowed_roots(ctx)
    if is_inside(resolved, roots):
        return resolved
    raise ToolError(_outside_message(ctx, raw, candidate, resolved))


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
