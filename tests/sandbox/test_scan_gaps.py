"""What the git scan could not list, made safe (scan_gaps.py, through git_guard.py and
quarantine.py). Load-bearing direction (first corpus): what the scan before a command did not list
is read-only for it — at most MAX_SEALED mounts, lifted to the folders above, never above a
writable folder — and the scan after passes over it, so nothing of the user's is moved; a folder
the scan after could not list is planted, and moved away whole; a folder the user owns that a
command made unreadable gets its owner's read and search bits back, and the report says how to
undo it. The second corpus: a folder that is another owner's, or was swapped for a link, is left
as it is; a writable folder itself is never moved."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from levelcode.sandbox import git_scan
from levelcode.sandbox.git_config import GitConfigSources
from levelcode.sandbox.git_controls import Planted
from levelcode.sandbox.git_guard import GitBaseline, git_protection, planted_since
from levelcode.sandbox.quarantine import SUMMARY, quarantine, quarantine_planted, report_lines
from levelcode.sandbox.scan_gaps import ListableAgain, covering, relisted_lines, sealed_lines


def _protected(ws: Path, tmp_path: Path) -> tuple[tuple[Path, ...], GitBaseline]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    protection = git_protection([ws], GitConfigSources(home, ()), tmp_path / "quarantine")
    return protection.read_only, protection.baseline


@pytest.fixture
def big(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace of 46 entries, with the scan's bound at 20: the root, node_modules and one
    package are listed before the bound; the package's own folder `deep` is not."""
    monkeypatch.setattr(git_scan, "MAX_SCAN_ENTRIES", 20)
    package = tmp_path / "ws" / "node_modules" / "pkg"
    (package / "deep" / "lib" / ".git").mkdir(parents=True)  # the user's own, past the bound
    for i in range(40):
        (package / f"f{i}.js").write_text("")
    return tmp_path / "ws"


def test_what_the_scan_before_did_not_list_is_read_only_and_passed_over_after(
    big: Path, tmp_path: Path
) -> None:
    read_only, baseline = _protected(big, tmp_path)
    deep = big / "node_modules" / "pkg" / "deep"
    assert deep in read_only
    assert baseline.sealed == ((deep, deep.stat().st_ino),)
    (big / "new.txt").write_text("")  # the root changed: listed again, not its sealed part
    assert planted_since(baseline)[0] == []
    assert quarantine_planted(baseline) == [
        "[sandbox] 1 folder(s) could not be checked for git files before the command (the check had "
        "listed 20 entries afresh), so what they hold was read-only for the command: node_modules/pkg/deep"
    ]
    assert (deep / "lib" / ".git").is_dir()
    assert quarantine_planted(baseline) == []  # told once, not at every check of a running process


def test_a_sealed_folder_renamed_away_is_looked_at_again_wherever_it_went(
    big: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mount point cannot be renamed, but the folder above it can: what stands at the sealed
    path afterwards, and the old folder where it went, are listed (here within the bound), and a
    git dir in either counts as planted — the user's own too, moved by the command unseen."""
    _, baseline = _protected(big, tmp_path)
    package = big / "node_modules" / "pkg"
    package.rename(big / "node_modules" / "old")
    (package / "deep" / ".git").mkdir(parents=True)
    monkeypatch.setattr(git_scan, "MAX_SCAN_ENTRIES", 1000)
    planted = {p.path for p in planted_since(baseline)[0]}
    assert planted == {package / "deep" / ".git", big / "node_modules" / "old" / "deep" / "lib" / ".git"}


def test_a_new_folder_past_the_bound_after_the_command_is_moved_away_whole(big: Path, tmp_path: Path) -> None:
    _, baseline = _protected(big, tmp_path)
    (big / "later" / "x" / ".git").mkdir(parents=True)
    for i in range(30):
        (big / f"g{i}").write_text("")  # the root's own listing takes the whole bound
    lines = quarantine_planted(baseline)
    assert lines[0].startswith(
        "[sandbox] moved later (a folder the check for planted git files could not list: the check had "
        "listed 20 entries afresh; what it holds is unknown) to "
    )
    assert lines[1] == SUMMARY
    assert not (big / "later").exists()
    assert (big / "node_modules" / "pkg" / "deep" / "lib" / ".git").is_dir()


def test_a_writable_folder_itself_is_never_moved(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    planted = [Planted(ws, "a folder the check for planted git files could not list: why")]
    (moved,) = quarantine(planted, [ws], tmp_path / "quarantine")
    assert moved.to is None
    assert ws.is_dir()
    line = report_lines([moved], [ws])[0]
    assert line.startswith(f"[sandbox] COULD NOT MOVE {ws} (")
    assert line.endswith("so it stays. Look inside it before you run git there")


def test_an_unreadable_folder_of_the_user_gets_read_and_search_back_and_the_report_says_how_to_undo(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "a").mkdir(parents=True)
    (ws / "a").chmod(0o311)
    remedy = ListableAgain()
    assert remedy(ws / "a", os.lstat(ws / "a"))
    assert stat.S_IMODE((ws / "a").stat().st_mode) == 0o711
    assert relisted_lines(remedy.done, [ws]) == [
        "[sandbox] gave a back read and search permission for you (mode 0311, now 0711): a command had "
        "taken them away, which hid what it holds from the check for planted git files. To take them "
        f"away again: chmod 0311 {ws / 'a'}"
    ]


def test_a_folder_swapped_for_a_link_is_not_changed_through_it(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    status = os.lstat(tmp_path / "a")
    (tmp_path / "a").rename(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").chmod(0o311)
    (tmp_path / "a").symlink_to(tmp_path / "elsewhere")
    remedy = ListableAgain()
    assert not remedy(tmp_path / "a", status)
    assert stat.S_IMODE((tmp_path / "elsewhere").stat().st_mode) == 0o311
    assert remedy.done == []


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder another user's needs root")
def test_another_owner_s_folder_is_left_as_it_is(tmp_path: Path) -> None:
    """No command running as the user could have changed its mode."""
    (tmp_path / "theirs").mkdir(mode=0o311)
    os.chown(tmp_path / "theirs", 65534, 65534)
    remedy = ListableAgain()
    assert not remedy(tmp_path / "theirs", os.lstat(tmp_path / "theirs"))
    assert stat.S_IMODE((tmp_path / "theirs").stat().st_mode) == 0o311


COVERED = {
    "few stay as they are": (["/w/a/b", "/w/c", "/w/a/b/d"], 3, ["/w/a/b", "/w/c"]),
    "the deepest lifted first": (["/w/a/b/1", "/w/a/b/2", "/w/a/c", "/w/d"], 3, ["/w/a/b", "/w/a/c", "/w/d"]),
    "up to the writable folder, never above": (["/w/a", "/w/b", "/w/c"], 2, ["/w"]),
    "roots of different depths": (["/w/a", "/w/b", "/x/y/z/r"], 2, ["/w", "/x/y/z"]),
}


@pytest.mark.parametrize("name", COVERED)
def test_at_most_so_many_folders_cover_what_was_not_listed(name: str) -> None:
    folders, most, cover = COVERED[name]
    roots = [Path("/w"), Path("/x/y/z")]
    assert covering(map(Path, folders), roots, most) == [Path(p) for p in cover]


def test_nothing_unchecked_says_nothing() -> None:
    assert sealed_lines((), (), [Path("/w")]) == []
