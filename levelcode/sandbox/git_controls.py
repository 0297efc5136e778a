"""What inside a git dir decides what git runs or which configuration it reads: the paths the
sandbox keeps read-only where they exist and moves away where they appear (`CONTROL_PATHS`), and
the rules for the state a rebase or cherry-pick leaves, which git must write and a later
`--continue` acts on. docs/git-in-the-sandbox.md is the same table, written for people.

No I/O of its own: names and text in, verdicts out; never touches the disk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.git_config import config_entries


@dataclass(frozen=True)
class Planted:
    """Something a confined process left that git would act on, and why it is moved away."""

    path: Path
    why: str


@dataclass(frozen=True)
class ControlPath:
    path: str  # relative to a git dir (any: a repository's, a linked worktree's, a submodule's)
    does: str  # what a planted one would make git do: the reason given when one is moved away


CONTROL_PATHS: tuple[ControlPath, ...] = (
    ControlPath(
        "config", "the repository's config: git runs what it names (fsmonitor, hooks, aliases, drivers)"
    ),
    ControlPath(
        "config.worktree", "a worktree's config: git runs what it names (fsmonitor, hooks, aliases, drivers)"
    ),
    ControlPath("hooks", "git's hooks: git runs them on commit, checkout, merge, rebase and push"),
    ControlPath("commondir", "it points git at another repository, whose config and hooks git would use"),
    ControlPath("gitdir", "it says where a worktree is: `git worktree repair` writes a .git file there"),
    ControlPath(
        "info/attributes", "attributes for every checkout: which of your filter and diff drivers run"
    ),
    ControlPath("objects/info/alternates", "it makes git read objects from another folder"),
    ControlPath("objects/info/http-alternates", "it makes git read objects from another address"),
    ControlPath("remotes", "old remote definitions: where `git push NAME` sends, whose hooks a push runs"),
    ControlPath("branches", "old remote definitions: where `git push NAME` sends, whose hooks a push runs"),
)
# Folders of a git dir holding git dirs of their own, each kept by the same rules.
WORKTREES = "worktrees"
MODULES = "modules"
OBJECTS = "objects"

REBASE_TODO = "rebase-merge/git-rebase-todo"
REBASE_STRATEGY = "rebase-merge/strategy"
SEQUENCER_OPTS = "sequencer/opts"
# git's own merge strategies; any other name makes git run the program `git-merge-NAME`, found on
# PATH or, for a name with a slash, from the working tree.
GIT_STRATEGIES = frozenset({"ort", "recursive", "resolve", "octopus", "ours", "subtree"})

NEW_WORKTREE = "a linked worktree whose pointers do not lead back to this repository and this workspace"
NEW_MODULE = "a new submodule git dir: git would run what its config and hooks say"
LINK = (
    "a symbolic link or special file in a git dir: git writes through it (COMMIT_EDITMSG, "
    "reflogs, FETCH_HEAD), into any file you can write"
)
TODO_EXEC = (
    "a rebase todo with exec lines that were not there before the command: `git rebase --continue` "
    "would run them. The rebase cannot go on without it: `git rebase --abort` ends it and puts the "
    "branch back where it was"
)
STRATEGY = (
    "a merge strategy that is not one of git's own: `git rebase --continue` would run the program "
    "`git-merge-{name}`. Without it the rebase goes on with git's default strategy"
)
OPTS_STRATEGY = (
    "cherry-pick or revert options naming a merge strategy that is not one of git's own: "
    "`git cherry-pick --continue` would run the program `git-merge-{name}`. Without them it goes on "
    "with git's defaults (or `git cherry-pick --abort`)"
)

_EXEC = re.compile(r"[ \t]*(exec|x)([ \t]|$)")
_SECTION = re.compile(r"[ \t]*\[([^\]\"]*)")
_WORKTREE_KEY = re.compile(r"[ \t]*worktree[ \t]*(=|$)", re.IGNORECASE)


def exec_lines(todo: str) -> frozenset[str]:
    """The lines of a rebase todo that run a command (`exec CMD` or `x CMD`), as written."""
    return frozenset(line.strip() for line in todo.splitlines() if _EXEC.match(line))


def foreign_strategy(name: str | None) -> bool:
    return name is not None and name.strip() not in GIT_STRATEGIES


def strategy_of_opts(text: str) -> str | None:
    """The merge strategy a cherry-pick or revert's `sequencer/opts` (config syntax) names."""
    found = [value for key, value in config_entries(text) if key == "options.strategy"]
    return found[-1] if found else None


def config_without_worktree(text: str) -> str | None:
    """A submodule git dir's config as the sandbox shows it: without `core.worktree`, which
    `git submodule update` rewrites (unchanged) every time, and the real file is never written
    from the sandbox. Git finds the submodule's working tree from its `.git` file all the same.
    None when the config does not set it, or sets it in a way this does not follow (a value
    continued on the next line): then the real file is shown."""
    kept: list[str] = []
    section = ""
    dropped = False
    for line in text.splitlines(keepends=True):
        header = _SECTION.match(line)
        if header is not None:
            section = header.group(1).strip().lower()
        elif section == "core" and _WORKTREE_KEY.match(line):
            if line.rstrip("\r\n").endswith("\\"):
                return None
            dropped = True
            continue
        kept.append(line)
    return "".join(kept) if dropped else None


# What `git init` and `git clone` write into a new repository's config: a repository whose config
# holds only these (and whose other control paths hold nothing) runs nothing, and may stay.
FRESH_KEYS = frozenset(
    {
        "core.repositoryformatversion",
        "core.filemode",
        "core.bare",
        "core.logallrefupdates",
        "core.ignorecase",
        "core.precomposeunicode",
        "core.symlinks",
        "core.sharedrepository",
        "receive.denynonfastforwards",
        "extensions.objectformat",
        "user.name",
        "user.email",
    }
)
_FRESH_PATTERNS = re.compile(r"remote\..+\.(url|fetch)|branch\..+\.(remote|merge)")


def fresh_config(text: str) -> bool:
    """Whether a new repository's config holds only what `git init` or `git clone` writes. A remote
    URL must not name a transport helper (`NAME::…` runs `git-remote-NAME`) or be an option."""
    for key, value in config_entries(text):
        if key in FRESH_KEYS:
            continue
        if not _FRESH_PATTERNS.fullmatch(key):
            return False
        if key.endswith(".url") and ("::" in value or value.startswith("-")):
            return False
    return True
