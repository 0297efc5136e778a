"""What a confined process planted for git, found after it (git_guard.py), and moved away
(quarantine.py). Load-bearing direction (first corpus, PLANTED): every control entry new since the
baseline — a `.git` folder, file or link anywhere (deep in node_modules too), a
folder made into a git dir, a missing named path that appeared, a named path swapped by renaming
its folder — is found and moved into a private folder, whole, and the report says where. The
second corpus (UNTOUCHED): the user's own repositories and files as they were, a repository only
moved by a rename of its parent, ordinary files (.gitignore, a file named like a git one, a
`.gitmodules`, which git checks out and which runs nothing) are left alone. The scan itself (its
bound, what it cannot list, its kept listings) is tested in test_git_scan.py and
test_scan_gaps.py; what happens inside git dirs, in test_git_dir_guard.py."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.sandbox.git_config import GitConfigSources
from levelcode.sandbox.git_guard import GitBaseline, git_protection, planted_since
from levelcode.sandbox.quarantine import SUMMARY, quarantine, quarantine_planted, report_lines


def _repo(path: Path) -> Path:
    for folder in ("objects", "refs/heads", "hooks"):
        (path / ".git" / folder).mkdir(parents=True, exist_ok=True)
    (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (path / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    return path


def _armed(path: Path) -> Path:
    """A repository whose config runs something: one `git init` alone would make may stay."""
    with (path / ".git" / "config").open("a") as config:
        config.write("\tfsmonitor = touch /x\n")
    return path


def _bare(path: Path) -> Path:
    for folder in ("objects", "refs"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "HEAD").write_text("ref: refs/heads/main\n")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = _repo(tmp_path / "ws")
    _repo(workspace / "vendor" / "lib")  # the user's own nested repository
    _bare(workspace / "fixtures" / "data.git")  # the user's own bare repository
    (workspace / "lib").mkdir()
    (workspace / "lib" / ".gitmodules").write_text('[submodule "x"]\n\tpath = x\n')
    (workspace / "tools").mkdir()
    (workspace / "tools" / "clean").write_text("cat\n")
    (workspace / "node_modules" / "a" / "b").mkdir(parents=True)
    return workspace


def _baseline(ws: Path, tmp_path: Path) -> GitBaseline:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(
        f"[include]\n\tpath = {ws}/.gitconfig.local\n"
        '[core]\n\thooksPath = .githooks\n[filter "f"]\n\tclean = ./tools/clean\n'
    )
    sources = GitConfigSources(home, (home / ".gitconfig",))
    return git_protection([ws], sources, tmp_path / "state" / "quarantine").baseline


def _swap_tools(ws: Path) -> None:
    (ws / "tools").rename(ws / "tools.old")
    (ws / "tools").mkdir()
    (ws / "tools" / "clean").write_text("touch /x\n")


PLANTED: dict[str, tuple[Callable[[Path], object], str]] = {
    "nested repository": (lambda ws: _armed(_repo(ws / "sub")), "sub/.git"),
    "deep in node_modules": (
        lambda ws: _armed(_repo(ws / "node_modules" / "a" / "b")),
        "node_modules/a/b/.git",
    ),
    "gitdir file": (
        lambda ws: (ws / "node_modules" / ".git").write_text("gitdir: /elsewhere\n"),
        "node_modules/.git",
    ),
    "git link": (
        lambda ws: (ws / "node_modules" / "a" / ".git").symlink_to("/elsewhere"),
        "node_modules/a/.git",
    ),
    "folder made a git dir": (lambda ws: _bare(ws / "node_modules" / "x"), "node_modules/x/HEAD"),
    "folder made a git dir by HEAD and commondir alone": (
        lambda ws: [
            (ws / "node_modules" / "y").mkdir(),
            (ws / "node_modules" / "y" / "HEAD").write_text("ref: refs/heads/main\n"),
            (ws / "node_modules" / "y" / "commondir").write_text("../../.git\n"),
        ],
        "node_modules/y/HEAD",
    ),
    "case of .git": (lambda ws: (ws / "node_modules" / ".GIT").mkdir(), "node_modules/.GIT"),
    "missing include target": (
        lambda ws: (ws / ".gitconfig.local").write_text("[core]\n"),
        ".gitconfig.local",
    ),
    "missing hooks folder": (lambda ws: (ws / ".githooks").mkdir(), ".githooks"),
    "program swapped by a rename": (_swap_tools, "tools/clean"),
    "nested repository replaced": (
        lambda ws: (
            (ws / "vendor" / "lib").rename(ws / "vendor" / "old"),
            _armed(_repo(ws / "vendor" / "lib")),
        ),
        "vendor/lib/.git",
    ),
}


@pytest.mark.parametrize("name", PLANTED)
def test_what_was_planted_is_found_and_moved_away_whole(ws: Path, tmp_path: Path, name: str) -> None:
    baseline = _baseline(ws, tmp_path)
    plant, where = PLANTED[name]
    plant(ws)
    lines = quarantine_planted(baseline)
    assert not os.path.lexists(ws / where), lines
    (line,) = [line for line in lines if line.startswith(f"[sandbox] moved {where} (")]
    moved_to = Path(line.rsplit(" to ", 1)[1])
    assert os.path.lexists(moved_to)
    assert moved_to.is_relative_to(baseline.quarantine)
    assert stat.S_IMODE(moved_to.parent.stat().st_mode) == 0o700
    assert lines[-1] == SUMMARY
    assert quarantine_planted(baseline) == []  # gone: nothing is found twice


UNTOUCHED: dict[str, Callable[[Path], object]] = {
    "nothing happened": lambda ws: None,
    "ordinary files": lambda ws: [
        (ws / n).write_text("x") for n in (".gitignore", ".gitattributes", "git.md")
    ],
    "a file named head": lambda ws: (ws / "fixtures" / "HEAD.md").write_text("x"),
    "a new .gitmodules": lambda ws: (ws / ".gitmodules").write_text("[submodule]\n"),
    "objects and refs without HEAD": lambda ws: _bare(ws / "x").joinpath("HEAD").unlink(),
    "the user's repository moved with its parent": lambda ws: (ws / "vendor").rename(ws / "third_party"),
    "work inside the user's repositories": lambda ws: (ws / "vendor" / "lib" / "new.txt").write_text("x"),
    "the named program's content": lambda ws: (ws / "tools" / "clean").write_text("cat -v\n"),
    "a repository git init would make": lambda ws: _repo(ws / "fresh"),
}


@pytest.mark.parametrize("name", UNTOUCHED)
def test_the_user_s_own_repositories_and_ordinary_files_are_left_alone(
    ws: Path, tmp_path: Path, name: str
) -> None:
    """(The named program's content cannot change in the sandbox: it is mounted read-only there.)"""
    baseline = _baseline(ws, tmp_path)
    UNTOUCHED[name](ws)
    planted, scan = planted_since(baseline)
    assert planted == []
    assert scan.complete


def test_the_baseline_keeps_what_decides_what_git_runs_read_only_and_the_git_dirs_anchored(
    ws: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    protection = git_protection([ws], GitConfigSources(home, ()), tmp_path / "q")
    git_dirs = [ws / ".git", ws / "vendor" / "lib" / ".git"]
    assert set(protection.read_only) == {d / name for d in git_dirs for name in ("config", "hooks")}
    assert set(protection.anchors) == {*git_dirs, ws / "fixtures" / "data.git"}


def test_what_cannot_be_moved_stays_and_is_reported_loudly(ws: Path, tmp_path: Path) -> None:
    baseline = _baseline(ws, tmp_path)
    _armed(_repo(ws / "sub"))
    planted, _ = planted_since(baseline)
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the quarantine folder would go")
    moved = quarantine(planted, baseline.roots, blocker)
    assert [m.to for m in moved] == [None]
    assert (ws / "sub" / ".git").is_dir()
    assert report_lines(moved, baseline.roots)[0].startswith("[sandbox] COULD NOT MOVE sub/.git")


def test_a_folder_swapped_for_a_link_before_the_move_is_not_followed(ws: Path, tmp_path: Path) -> None:
    """A process still running (a background job) may replace `sub` with a link elsewhere between
    the scan and the move: what lies there is not the workspace's, and stays."""
    baseline = _baseline(ws, tmp_path)
    _armed(_repo(ws / "sub"))
    planted, _ = planted_since(baseline)
    elsewhere = _repo(tmp_path / "elsewhere")
    (ws / "sub").rename(ws / "sub.old")
    (ws / "sub").symlink_to(elsewhere)
    (moved,) = quarantine(planted, baseline.roots, baseline.quarantine)
    assert moved.to is None
    assert "was replaced meanwhile" in moved.error
    assert (elsewhere / ".git" / "config").is_file()


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no second file system at /dev/shm")
def test_a_quarantine_on_another_file_system_gets_a_copy_and_the_plant_is_removed(
    ws: Path, tmp_path: Path
) -> None:
    baseline = _baseline(ws, tmp_path)
    _armed(_repo(ws / "sub"))
    (ws / "sub" / ".git" / "link").symlink_to("/etc/passwd")
    (ws / "node_modules" / ".git").write_text("gitdir: /elsewhere\n")
    planted, _ = planted_since(baseline)
    other = Path(tempfile.mkdtemp(dir="/dev/shm"))
    try:
        moved = quarantine(planted, baseline.roots, other)
        assert [m.error for m in moved] == ["", ""]
        assert not (ws / "sub" / ".git").exists()
        assert not (ws / "node_modules" / ".git").exists()
        copied = next(m.to for m in moved if m.planted.path == ws / "sub" / ".git")
        assert copied is not None
        assert (copied / "link").is_symlink()  # copied as a link, not followed
        assert (copied / "config").is_file()
    finally:
        shutil.rmtree(other)
