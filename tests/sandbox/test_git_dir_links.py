"""The walk of the git dirs git may write, for links git would write through (git_dir_links.py,
on folder_listings.py): it fails closed as the scan of the writable folders does. Load-bearing
direction (first corpus): a link past the bound, or in a folder the walk cannot list, is never
skipped — the folder it could not list is planted after a command (or made listable and checked),
and read-only for the command when it was not listed before one; a new repository holding a
folder it cannot list is not taken for one `git init` made. Second corpus: a folder unchanged
since its last listing is not listed again, so a big git dir does not use up the bound; what was
read-only throughout is passed over; the git dirs a git dir holds are walked on their own, and
loose objects not at all. Tests that need a folder its owner cannot list skip as root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from levelcode.sandbox import folder_listings, git_dir_links
from levelcode.sandbox.git_config import GitConfigSources
from levelcode.sandbox.git_controls import LINK, Planted
from levelcode.sandbox.git_dir_links import LinkWalks
from levelcode.sandbox.git_guard import GitProtection, git_protection, planted_since
from levelcode.sandbox.quarantine import quarantine_planted
from levelcode.sandbox.scan_gaps import ListableAgain
from tests.support.users_git import users_git

NOT_ROOT = pytest.mark.skipif(os.geteuid() == 0, reason="root lists every folder whatever its mode")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "f.txt").write_text("a\n")
    for args in (("init", "-q"), ("add", "."), ("commit", "-qm", "a")):
        assert users_git(tmp_path, *args, cwd=workspace).returncode == 0
    return workspace


def protect(ws: Path, tmp_path: Path) -> GitProtection:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return git_protection([ws], GitConfigSources(home, ()), tmp_path / "q")


def _linked_reflog(ws: Path, tmp_path: Path) -> Path:
    """logs/HEAD made a link out: git appends to it at every commit."""
    reflog = ws / ".git" / "logs" / "HEAD"
    reflog.unlink()
    reflog.symlink_to(tmp_path / "outside")
    return reflog


def _why(planted: list[Planted], path: Path) -> str:
    (why,) = [p.why for p in planted if p.path == path]
    return why


def test_a_folder_past_the_bound_after_a_command_is_planted_not_skipped(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The git dir was listed whole before; the command adds 20 entries at its top, listed
    afresh before logs/, whose new link is then past the bound."""
    baseline = protect(ws, tmp_path).baseline
    monkeypatch.setattr(git_dir_links, "MAX_GIT_DIR_ENTRIES", 10)
    for i in range(20):
        (ws / ".git" / f"junk{i}").write_text("")
    _linked_reflog(ws, tmp_path)
    planted, _ = planted_since(baseline)
    assert "the check had listed 10 entries afresh" in _why(planted, ws / ".git" / "logs")


def test_what_the_bound_leaves_unlisted_before_a_command_is_read_only_for_it_and_passed_over(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(git_dir_links, "MAX_GIT_DIR_ENTRIES", 5)  # the git dir's top alone
    protection = protect(ws, tmp_path)
    unchecked = {u.path for u in protection.baseline.unchecked}
    assert {ws / ".git" / name for name in ("logs", "objects", "refs")} <= unchecked
    assert all(any(u.is_relative_to(r) for r in protection.read_only) for u in unchecked)
    lines = quarantine_planted(protection.baseline)
    assert not any(line.startswith("[sandbox] moved") for line in lines), lines
    (line,) = lines
    assert "so what they hold was read-only for the command: " in line
    assert ".git/logs" in line


def test_an_unchanged_folder_is_not_listed_again_so_a_big_git_dir_keeps_within_the_bound(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder_listings, "RACY_SECONDS", -1.0)  # every listing counts as settled
    baseline = protect(ws, tmp_path).baseline
    monkeypatch.setattr(git_dir_links, "MAX_GIT_DIR_ENTRIES", 3)  # far less than the git dir holds
    listed: list[str] = []
    real = folder_listings._list

    def counting(folder: str, read: folder_listings.Reader[object]) -> object:
        if read is git_dir_links._links:
            listed.append(folder)
        return real(folder, read)

    monkeypatch.setattr(folder_listings, "_list", counting)
    reflog = _linked_reflog(ws, tmp_path)
    planted, _ = planted_since(baseline)
    assert listed == [str(ws / ".git" / "logs")]
    assert planted == [Planted(reflog, LINK)]


def test_the_git_dirs_a_git_dir_holds_are_walked_on_their_own_and_loose_objects_not_at_all(
    ws: Path, tmp_path: Path
) -> None:
    git_dir = ws / ".git"
    assert users_git(tmp_path, "worktree", "add", "-q", "wt", cwd=ws).returncode == 0
    module = git_dir / "modules" / "a" / "b"  # a submodule named a/b
    for folder in ("objects", "refs"):
        (module / folder).mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "objects" / "ab").mkdir(exist_ok=True)
    links = ["worktrees/x", "worktrees/wt/x", "modules/x", "modules/a/x", "modules/a/b/x"]
    links += ["objects/ab/x", "objects/info/x"]
    for name in links:
        (git_dir / name).symlink_to("/")
    found = {Path(path) for path, _ in LinkWalks().links_in(git_dir).found}
    assert found == {git_dir / name for name in ("worktrees/x", "modules/x", "modules/a/x", "objects/info/x")}
    assert {Path(p) for p, _ in LinkWalks().links_in(git_dir / "worktrees" / "wt").found} == {
        git_dir / "worktrees/wt/x"
    }


@NOT_ROOT
def test_a_folder_a_command_made_unlistable_is_made_listable_and_its_link_found(
    ws: Path, tmp_path: Path
) -> None:
    baseline = protect(ws, tmp_path).baseline
    reflog = _linked_reflog(ws, tmp_path)
    (ws / ".git" / "logs").chmod(0o311)
    relisted = ListableAgain()
    planted, _ = planted_since(baseline, relisted)
    assert [r.path for r in relisted.done] == [ws / ".git" / "logs"]
    assert _why(planted, reflog) == LINK


@NOT_ROOT
def test_without_a_remedy_a_folder_it_cannot_list_is_planted(ws: Path, tmp_path: Path) -> None:
    baseline = protect(ws, tmp_path).baseline
    _linked_reflog(ws, tmp_path)
    logs = ws / ".git" / "logs"
    logs.chmod(0o311)
    try:
        planted, _ = planted_since(baseline)
    finally:
        logs.chmod(0o755)
    assert "you may not read or search it" in _why(planted, logs)


@NOT_ROOT
def test_a_new_repository_holding_a_folder_it_cannot_list_is_not_taken_for_a_fresh_one(
    ws: Path, tmp_path: Path
) -> None:
    baseline = protect(ws, tmp_path).baseline
    assert users_git(tmp_path, "init", "-q", "sub", cwd=ws).returncode == 0
    assert planted_since(baseline)[0] == []  # what `git init` makes may stay
    refs = ws / "sub" / ".git" / "refs"
    refs.chmod(0o311)
    try:
        planted, _ = planted_since(baseline)
    finally:
        refs.chmod(0o755)
    assert [p.path for p in planted] == [ws / "sub" / ".git"]
