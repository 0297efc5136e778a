"""What a confined process leaves inside a git dir git may write (git_dir_state.py, git_new_dirs.py),
found after it and moved away (quarantine.py). Load-bearing direction (first corpus, PLANTED): a
control path that appeared (commondir, config.worktree, hooks where there were none,
info/attributes, alternates, remotes/, branches/), one swapped by renaming its folder, a linked
worktree git did not make, a new submodule git dir, a link or pipe in the git dir, a rebase todo
with new exec lines, a strategy that is not git's own — each is found and moved, and the report
says why. Second corpus (GIT'S OWN WORK): what git itself writes — objects, refs, the index, logs,
a commit message, a rebase's todo without exec lines, `git worktree add`'s linked worktree, work in
an existing submodule — is left alone. Also: the mounts that keep each git dir (the git dir and
the folders above its islands bound onto themselves, each existing control path read-only), and
which repositories outside the writable folders git may write."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.sandbox.git_config import GitConfigSources
from levelcode.sandbox.git_controls import LINK, NEW_MODULE, NEW_WORKTREE, TODO_EXEC
from levelcode.sandbox.git_guard import GitBaseline, GitProtection, git_protection, planted_since
from levelcode.sandbox.git_repositories import repository_outside
from levelcode.sandbox.quarantine import quarantine_planted

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1"}
IDENTITY = ("-c", "user.name=u", "-c", "user.email=u@u", "-c", "init.defaultBranch=main")


def git(cwd: Path, *args: str) -> str:
    env = {**ENV, "HOME": str(cwd)}
    done = subprocess.run(
        ["git", *IDENTITY, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    git(workspace, "init", "-q")
    (workspace / "f.txt").write_text("a\n")
    git(workspace, "add", "f.txt")
    git(workspace, "commit", "-qm", "a")
    return workspace


def protect(ws: Path, tmp_path: Path) -> tuple[GitBaseline, GitProtection]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    protection = git_protection([ws], GitConfigSources(home, ()), tmp_path / "q")
    return protection.baseline, protection


def _write(path: Path, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _new_module(ws: Path) -> None:
    for folder in ("objects", "refs"):
        (ws / ".git" / "modules" / "lib" / folder).mkdir(parents=True)
    _write(ws / ".git" / "modules" / "lib" / "HEAD", "ref: refs/heads/main\n")


def _foreign_worktree(ws: Path) -> None:
    _write(ws / ".git" / "worktrees" / "evil" / "commondir", "/elsewhere\n")
    _write(ws / ".git" / "worktrees" / "evil" / "HEAD", "ref: refs/heads/main\n")


def _stopped_rebase(ws: Path) -> Path:
    rebase = ws / ".git" / "rebase-merge"
    _write(rebase / "git-rebase-todo", "pick 1234567 one\n")
    return rebase


PLANTED: dict[str, tuple[Callable[[Path], object], str, str]] = {
    "commondir": (
        lambda ws: _write(ws / ".git" / "commondir", "/elsewhere\n"),
        ".git/commondir",
        "another repository",
    ),
    "config.worktree": (lambda ws: _write(ws / ".git" / "config.worktree"), ".git/config.worktree", "config"),
    "hooks where there were none": (
        lambda ws: _write(ws / ".git" / "hooks" / "pre-commit"),
        ".git/hooks",
        "hooks",
    ),
    "info/attributes": (
        lambda ws: _write(ws / ".git" / "info" / "attributes"),
        ".git/info/attributes",
        "drivers",
    ),
    "alternates": (
        lambda ws: _write(ws / ".git" / "objects" / "info" / "alternates", "/elsewhere\n"),
        ".git/objects/info/alternates",
        "objects from another folder",
    ),
    "remotes": (lambda ws: _write(ws / ".git" / "remotes" / "up", "URL: /x\n"), ".git/remotes", "push"),
    "branches": (lambda ws: _write(ws / ".git" / "branches" / "up", "/x\n"), ".git/branches", "push"),
    "a worktree git did not make": (_foreign_worktree, ".git/worktrees/evil", NEW_WORKTREE),
    "a new submodule git dir": (_new_module, ".git/modules/lib", NEW_MODULE),
    "a linked commit message": (
        lambda ws: (ws / ".git" / "MERGE_MSG").symlink_to(ws.parent / "victim"),
        ".git/MERGE_MSG",
        LINK,
    ),
    "a linked reflog": (
        lambda ws: (
            (ws / ".git" / "logs" / "HEAD").unlink(),
            (ws / ".git" / "logs" / "HEAD").symlink_to("/x"),
        ),
        ".git/logs/HEAD",
        LINK,
    ),
    "a pipe in the git dir": (lambda ws: os.mkfifo(ws / ".git" / "MERGE_MSG"), ".git/MERGE_MSG", LINK),
    "a todo with new exec lines": (
        lambda ws: _write(_stopped_rebase(ws) / "git-rebase-todo", "pick 1234567 one\nexec touch /x\n"),
        ".git/rebase-merge/git-rebase-todo",
        TODO_EXEC,
    ),
    "a strategy that is not git's": (
        lambda ws: _write(_stopped_rebase(ws) / "strategy", "../../x\n"),
        ".git/rebase-merge/strategy",
        "git-merge-../../x",
    ),
    "a new repository with a hook": (
        lambda ws: (git(ws, "init", "-q", "sub"), _write(ws / "sub" / ".git" / "hooks" / "pre-commit")),
        "sub/.git",
        "a git repository",
    ),
    "a new repository with a helper remote": (
        lambda ws: (git(ws, "init", "-q", "sub"), git(ws / "sub", "remote", "add", "origin", "evil::x")),
        "sub/.git",
        "a git repository",
    ),
    "a new bare repository with an include": (
        lambda ws: (
            git(ws, "init", "-q", "--bare", "x.git"),
            git(ws / "x.git", "config", "include.path", "/x"),
        ),
        "x.git/HEAD",
        "a folder made into a git dir",
    ),
    "cherry-pick options with a strategy": (
        lambda ws: _write(ws / ".git" / "sequencer" / "opts", "[options]\n\tstrategy = evil\n"),
        ".git/sequencer/opts",
        "git-merge-evil",
    ),
}


@pytest.mark.parametrize("name", PLANTED)
def test_what_was_planted_in_a_git_dir_is_found_and_moved_away(ws: Path, tmp_path: Path, name: str) -> None:
    """(An existing control path cannot be written in the sandbox: it is mounted read-only there.
    So here the git dir has none of them, as `git init --template=` makes it.)"""
    for folder in ("hooks", "branches"):
        (ws / ".git" / folder).rename(tmp_path / f"{folder}-aside")
    baseline, _ = protect(ws, tmp_path)
    plant, where, why = PLANTED[name]
    plant(ws)
    lines = quarantine_planted(baseline)
    assert not os.path.lexists(ws / where), lines
    (line,) = [line for line in lines if line.startswith(f"[sandbox] moved {where} (")]
    assert why in line
    assert planted_since(baseline)[0] == []  # gone: nothing is found twice


def test_a_control_path_swapped_by_renaming_its_folder_is_moved(ws: Path, tmp_path: Path) -> None:
    """In the sandbox `info` is a mount point and cannot be renamed; this is the check behind it."""
    (ws / ".git" / "info" / "attributes").write_text("")
    baseline, _ = protect(ws, tmp_path)
    (ws / ".git" / "info").rename(ws / ".git" / "info.old")
    _write(ws / ".git" / "info" / "attributes", "* filter=x\n")
    (found,) = planted_since(baseline)[0]
    assert found.path == ws / ".git" / "info" / "attributes"


def _rebase_without_exec(ws: Path) -> None:
    _write(_stopped_rebase(ws) / "strategy", "ort\n")
    _write(ws / ".git" / "rebase-merge" / "git-rebase-todo", "pick 1234567 one\npick 89abcde two\n")


def _everyday_work(ws: Path) -> None:
    _write(ws / "f.txt", "b\n")
    git(ws, "commit", "-qam", "b")
    git(ws, "switch", "-qc", "topic")
    git(ws, "tag", "v1")
    _write(ws / "g.txt")
    git(ws, "stash", "-q", "--include-untracked")


GITS_OWN_WORK: dict[str, Callable[[Path], object]] = {
    "a commit, a branch, a tag, a stash": _everyday_work,
    "a commit message and a merge in progress": lambda ws: (
        _write(ws / ".git" / "COMMIT_EDITMSG"),
        _write(ws / ".git" / "MERGE_MSG"),
    ),
    "a rebase without exec lines": _rebase_without_exec,
    "git worktree add": lambda ws: git(ws, "worktree", "add", "-q", "extra", "-b", "extra"),
    "git init": lambda ws: git(ws, "init", "-q", "new"),
    "git init --bare": lambda ws: git(ws, "init", "-q", "--bare", "new.git"),
    "git clone, and a commit there": lambda ws: (
        git(ws, "clone", "-q", str(ws), "copy"),
        git(ws / "copy", "commit", "-q", "--allow-empty", "-m", "c"),
    ),
}


@pytest.mark.parametrize("name", GITS_OWN_WORK)
def test_what_git_itself_writes_is_left_alone(ws: Path, tmp_path: Path, name: str) -> None:
    baseline, _ = protect(ws, tmp_path)
    GITS_OWN_WORK[name](ws)
    planted, _ = planted_since(baseline)
    assert planted == []


def test_exec_lines_already_there_stay_and_a_new_one_does_not(ws: Path, tmp_path: Path) -> None:
    todo = _stopped_rebase(ws) / "git-rebase-todo"
    todo.write_text("pick 1234567 one\nexec make test\n")
    baseline, _ = protect(ws, tmp_path)
    todo.write_text("exec make test\npick 1234567 one\n")  # reordered: nothing new runs
    assert planted_since(baseline)[0] == []
    todo.write_text("exec make test\nx  sh -c evil\npick 1234567 one\n")
    (found,) = planted_since(baseline)[0]
    assert found.path == todo


def test_a_worktree_whose_checkout_lies_outside_the_workspace_is_moved(ws: Path, tmp_path: Path) -> None:
    """`git worktree add ../elsewhere` writes its .git file where the sandbox cannot; one that
    appears anyway (made by hand) names a checkout outside: not git's own work in this workspace."""
    baseline, _ = protect(ws, tmp_path)
    git(ws, "worktree", "add", "-q", str(tmp_path / "elsewhere"), "-b", "x")
    planted, _ = planted_since(baseline)
    assert [p.path for p in planted] == [ws / ".git" / "worktrees" / "elsewhere"]


def test_a_new_worktree_with_its_own_config_is_moved_with_its_checkout_pointer(
    ws: Path, tmp_path: Path
) -> None:
    baseline, _ = protect(ws, tmp_path)
    git(ws, "worktree", "add", "-q", "extra", "-b", "extra")
    _write(ws / ".git" / "worktrees" / "extra" / "config.worktree", "[core]\n\tfsmonitor = x\n")
    planted, _ = planted_since(baseline)
    assert {p.path for p in planted} == {ws / ".git" / "worktrees" / "extra", ws / "extra" / ".git"}


def test_work_in_an_existing_submodule_is_left_alone_and_a_new_link_there_is_not(
    ws: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "libsrc"
    lib.mkdir()
    git(lib, "init", "-q")
    git(lib, "commit", "-q", "--allow-empty", "-m", "l")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    baseline, _ = protect(ws, tmp_path)
    git(ws / "lib", "commit", "-q", "--allow-empty", "-m", "more")
    assert planted_since(baseline)[0] == []
    (ws / ".git" / "modules" / "lib" / "COMMIT_EDITMSG").unlink()
    (ws / ".git" / "modules" / "lib" / "COMMIT_EDITMSG").symlink_to("/x")
    (found,) = planted_since(baseline)[0]
    assert found.path == ws / ".git" / "modules" / "lib" / "COMMIT_EDITMSG"


# --- the mounts --------------------------------------------------------------------------------


def test_the_git_dir_is_writable_and_its_control_paths_read_only(ws: Path, tmp_path: Path) -> None:
    (ws / ".git" / "info" / "attributes").write_text("")
    git(ws, "worktree", "add", "-q", "extra", "-b", "extra")
    _, protection = protect(ws, tmp_path)
    dot_git = ws / ".git"
    assert dot_git not in protection.read_only
    assert {dot_git / "config", dot_git / "hooks", dot_git / "info" / "attributes"} <= set(
        protection.read_only
    )
    extra = dot_git / "worktrees" / "extra"
    assert {extra / "commondir", extra / "gitdir", ws / "extra" / ".git"} <= set(protection.read_only)
    anchors = list(protection.anchors)
    assert anchors[:1] == [dot_git]  # outermost first: bwrap mounts a parent before what is inside
    assert {dot_git / "info", dot_git / "worktrees", extra} <= set(anchors)


def test_a_linked_worktree_s_repository_is_writable_only_where_it_names_the_worktree_back(
    tmp_path: Path,
) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "m")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    assert repository_outside(tmp_path / "wt", [tmp_path / "wt"]) == main / ".git"
    assert repository_outside(tmp_path / "wt" / "sub", [tmp_path / "wt" / "sub"]) == main / ".git"
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")  # a copied .git file
    assert repository_outside(stray, [stray]) is None


def test_a_package_folder_s_repository_is_writable(tmp_path: Path) -> None:
    mono = tmp_path / "mono"
    (mono / "pkg").mkdir(parents=True)
    git(mono, "init", "-q")
    assert repository_outside(mono / "pkg", [mono / "pkg"]) == mono / ".git"
    assert repository_outside(mono, [mono]) is None  # inside: writable already
