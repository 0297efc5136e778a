"""Files a file tool would write that git acts on beyond `.git/` (protected_paths.py covers that):
`.gitmodules`, a `HEAD` (with `objects/` and `refs/` beside it a folder is a git dir to git),
anything inside a folder that already is a git dir, and what the user's git configuration names
inside the workspace or an added directory — config and include files, the hooks folder, the
programs of drivers, fsmonitor, aliases (sandbox/git_config.py reads it, as the sandbox does).

Stat-like checks and the small git config files only; never writes, never runs git.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from levelcode.sandbox.git_config import GitConfigSources
from levelcode.sandbox.git_guard import WHY, named_in_roots
from levelcode.sandbox.git_layout import HEAD, SUBMODULES_FILE, is_git_dir

NAMED_FILES = {
    SUBMODULES_FILE: ".gitmodules points git at submodule repositories",
    HEAD: "a HEAD file makes its folder a git repository to git",
}


def git_target(path: Path, roots: Sequence[Path]) -> str | None:
    """Why git acts on `path` (resolved, inside one of `roots`); None for an ordinary file."""
    why = NAMED_FILES.get(path.name.lower())
    if why is not None:
        return why
    root = next((r for r in roots if path.is_relative_to(r)), None)
    if root is not None and any(is_git_dir(folder) for folder in _folders_between(path, root)):
        return "it lies in a git repository's own folder: git runs what its config and hooks say"
    return _named(path, roots)


def _folders_between(path: Path, root: Path) -> list[Path]:
    return [folder for folder in path.parents if folder.is_relative_to(root)]


def _named(path: Path, roots: Sequence[Path]) -> str | None:
    env = os.environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    sources = GitConfigSources.from_environment(env, home, config_home)
    for named in named_in_roots(roots, sources):
        if path == named.path or (named.role == "folder" and path.is_relative_to(named.path)):
            return WHY[named.role]
    return None
