"""The four repository layouts a workspace can have, built with the user's own git outside the
sandbox: (a) a plain repository, (b) a linked worktree whose git dir lives in another checkout's
`.git/worktrees/`, (c) a package folder of a bigger repository, (d) a superproject with an
initialised submodule. Each lies outside /tmp (a real home's code folder: the sandbox's /tmp is
private), with the user's HOME beside it, and its workspace on a branch named `work`.

Also the user's own git: outside the sandbox, their HOME and ~/.gitconfig, no system config.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.sandbox import host_folder

USER_GITCONFIG = (
    "[user]\n\tname = Dev\n\temail = dev@example.com\n"
    "[init]\n\tdefaultBranch = main\n"
    '[protocol "file"]\n\tallow = always\n'  # the submodule of layout (d) is cloned from a folder
)


@dataclass(frozen=True)
class Layout:
    name: str
    workspace: Path  # where LevelCode runs: the folder the sandbox makes writable
    home: Path  # the user's HOME, with their ~/.gitconfig
    outside: Path  # the folder holding all of it (and the test's markers)
    git_dir: Path  # the workspace's git dir
    common_dir: Path  # the git dir's common dir (the same for all but a linked worktree)


def git_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_EDITOR": "true",  # a message git asks for is taken as it stands
        "LANG": "C.UTF-8",
    }


def user_git(home: Path, cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The user's own git, outside the sandbox."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=git_env(home), capture_output=True, text=True, timeout=60, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {done.stderr}")
    return done


def run_git(cwd: Path, *args: str) -> None:
    """git in the test's own (isolated) HOME, with a committer of its own; raises on failure."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _commit_file(home: Path, repo: Path, path: str, text: str, message: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    user_git(home, repo, "add", path)
    user_git(home, repo, "commit", "-qm", message)


def _new_repository(home: Path, repo: Path, *files: str) -> Path:
    repo.mkdir(parents=True)
    user_git(home, repo, "init", "-q")
    for path in files or ("f.txt",):
        _commit_file(home, repo, path, "a\n", f"add {path}")
    return repo


def plain(outside: Path, home: Path) -> Layout:
    repo = _new_repository(home, outside / "repo")
    user_git(home, repo, "switch", "-qc", "work")
    return Layout("plain", repo, home, outside, repo / ".git", repo / ".git")


def linked_worktree(outside: Path, home: Path) -> Layout:
    main = _new_repository(home, outside / "main")
    user_git(home, main, "worktree", "add", "-q", str(outside / "wt"), "-b", "work")
    git_dir = main / ".git" / "worktrees" / "wt"
    return Layout("linked worktree", outside / "wt", home, outside, git_dir, main / ".git")


def package_of_a_repository(outside: Path, home: Path) -> Layout:
    mono = _new_repository(home, outside / "mono", "pkg/f.txt", "other/o.txt")
    user_git(home, mono, "switch", "-qc", "work")
    return Layout("package of a repository", mono / "pkg", home, outside, mono / ".git", mono / ".git")


def with_submodule(outside: Path, home: Path) -> Layout:
    lib = _new_repository(home, outside / "libsrc", "lib.txt")
    _commit_file(home, lib, "lib.txt", "b\n", "second")
    sup = _new_repository(home, outside / "super")
    user_git(home, sup, "submodule", "add", "-q", str(lib), "lib")
    user_git(home, sup, "commit", "-qm", "add lib")
    user_git(home, sup, "switch", "-qc", "work")
    return Layout("with submodule", sup, home, outside, sup / ".git", sup / ".git")


LAYOUTS: dict[str, Callable[[Path, Path], Layout]] = {
    "plain": plain,
    "linked worktree": linked_worktree,
    "package of a repository": package_of_a_repository,
    "with submodule": with_submodule,
}


@contextmanager
def layout(name: str) -> Iterator[Layout]:
    """One layout, in a fresh folder outside /tmp, removed afterwards."""
    with host_folder() as outside:
        home = outside / "home"
        home.mkdir()
        (home / ".gitconfig").write_text(USER_GITCONFIG)
        yield LAYOUTS[name](outside, home)
