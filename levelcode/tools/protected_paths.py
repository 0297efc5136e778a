"""Folders inside a workspace that no tool writes to without a person's yes, because what is in
them runs code or configures LevelCode. Pure: judges path parts, never touches the disk.
"""

from __future__ import annotations

from collections.abc import Iterable

PURE = True

# folder name (compared case-insensitively: some file systems are) -> why writing there matters
PROTECTED_FOLDERS: dict[str, str] = {
    ".git": ".git/config and hooks run code",
    ".levelcode": ".levelcode/ holds repository configuration for LevelCode",
}


def protected_folder(parts: Iterable[str]) -> tuple[str, str] | None:
    """The protected folder among `parts` (a path's parts below its root) and why it is
    protected; None when the path lies in none. `.git` itself counts: a `.git` file can point
    git at another directory's config."""
    for part in parts:
        why = PROTECTED_FOLDERS.get(part.lower())
        if why is not None:
            return part, why
    return None
