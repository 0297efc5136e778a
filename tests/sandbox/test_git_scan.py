"""The walk that finds git's control entries (git_scan.py, on folder_listings.py). Load-bearing
direction (first corpus): nothing under the roots goes unaccounted for — every git dir shape git's
discovery accepts is found (HEAD beside objects and refs, or beside a commondir alone), the root's
own findings are kept whatever the bound, and a folder not listed (unreadable, a path too long, the
bound reached, no room to keep its listing) is returned with its reason, never skipped. The second
corpus: names git does not take for a repository are not found, a folder passed over stays
unentered while it is that same folder, and an unchanged folder is not listed again (so the bound
counts only what changed). Tests that need a folder its owner cannot list skip as root, who lists
anything."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.sandbox import folder_listings, git_scan
from levelcode.sandbox.folder_listings import MAX_PATH_CHARS
from levelcode.sandbox.git_layout import DOT_GIT, HEAD, SUBMODULES_FILE
from levelcode.sandbox.git_scan import scan_git_control

NOT_ROOT = pytest.mark.skipif(os.geteuid() == 0, reason="root lists every folder whatever its mode")


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders listed afresh, in order."""
    seen: list[str] = []
    real = folder_listings._list

    def counting(folder: str, read: folder_listings.Reader[object]) -> object:
        seen.append(folder)
        return real(folder, read)

    monkeypatch.setattr(folder_listings, "_list", counting)
    return seen


def _files(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"f{i}").write_text("")
    return folder


def _found(roots: list[Path], **options: object) -> list[Path]:
    return [entry.path for entry in scan_git_control(roots, **options).entries]  # type: ignore[arg-type]


GIT_DIRS: dict[str, tuple[tuple[str, ...], bool]] = {
    "HEAD, objects and refs": (("HEAD", "objects/", "refs/"), True),
    "HEAD and commondir alone (git 2.39 reads its config)": (("HEAD", "commondir"), True),
    "head in lower case": (("head", "commondir"), True),
    "objects and refs without HEAD": (("objects/", "refs/"), False),
    "HEAD and objects": (("HEAD", "objects/"), False),
    "HEAD alone": (("HEAD",), False),
}


@pytest.mark.parametrize("name", GIT_DIRS)
def test_a_folder_is_a_git_dir_exactly_when_git_s_discovery_takes_it_for_one(
    tmp_path: Path, name: str
) -> None:
    names, is_git_dir = GIT_DIRS[name]
    folder = tmp_path / "x"
    folder.mkdir()
    for entry in names:
        (folder / entry).mkdir() if entry.endswith("/") else (folder / entry).write_text("")
    heads = [path for path in _found([tmp_path]) if path.parent == folder]
    assert heads == ([folder / names[0]] if is_git_dir else [])


def test_every_name_the_scan_looks_at_passes_its_first_letter_filter() -> None:
    """The filter is a speed-up: a name it drops is never looked at, whatever else says."""
    names = [DOT_GIT, SUBMODULES_FILE, HEAD, *git_scan._GIT_DIR_MARKS]
    for name in names:
        assert {name[0].lower(), name[0].upper()} <= git_scan._INTERESTING


def test_the_roots_own_findings_are_kept_whatever_the_bound(tmp_path: Path) -> None:
    """The root is listed whole even when its own entries pass the bound; what is left unlisted
    after is named, not dropped."""
    ws = _files(tmp_path / "ws", 30)
    (ws / ".git").mkdir()
    (ws / "a" / "b").mkdir(parents=True)
    scan = scan_git_control([ws], limit=10)
    assert [e.path for e in scan.entries] == [ws / ".git"]
    reasons = [(u.path, u.reason) for u in scan.unlisted]
    assert reasons == [(ws / "a", "the check had listed 10 entries afresh")]
    assert not scan.complete


def test_the_bound_counts_only_folders_listed_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listed: list[str]
) -> None:
    """A tree over the bound is listed part by part, each scan going on where the last stopped;
    once whole, a scan lists only what changed, however big the rest."""
    monkeypatch.setattr(folder_listings, "RACY_SECONDS", -1.0)  # every listing counts as settled
    ws = tmp_path / "ws"
    for package in range(6):
        _files(ws / "node_modules" / f"p{package}", 20)
    scans = [scan_git_control([ws], limit=30) for _ in range(5)]
    assert [s.complete for s in scans] == [False, False, True, True, True]
    assert sum(s.scanned for s in scans) == 1 + 6 + 6 * 20  # each folder listed once
    listed.clear()
    (ws / "node_modules" / "p3" / "sub").mkdir()
    (ws / "node_modules" / "p3" / "sub" / ".git").mkdir()
    after = scan_git_control([ws], limit=30)
    assert after.complete
    assert listed == [str(ws / "node_modules" / "p3"), str(ws / "node_modules" / "p3" / "sub")]
    assert ws / "node_modules" / "p3" / "sub" / ".git" in [e.path for e in after.entries]


def test_an_unchanged_folder_is_not_listed_again_and_a_changed_one_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listed: list[str]
) -> None:
    monkeypatch.setattr(folder_listings, "RACY_SECONDS", -1.0)
    ws = tmp_path / "ws"
    (ws / "node_modules" / "a" / "b").mkdir(parents=True)
    first = scan_git_control([ws])
    listed.clear()
    again = scan_git_control([ws])
    assert (again.entries, again.unlisted, again.scanned) == (first.entries, (), 0)
    assert listed == []
    (ws / "node_modules" / "a" / "b" / ".git").mkdir()  # deep: only that folder changes
    changed = scan_git_control([ws])
    assert listed == [str(ws / "node_modules" / "a" / "b")]
    assert ws / "node_modules" / "a" / "b" / ".git" in [entry.path for entry in changed.entries]


def test_a_folder_changed_just_before_its_listing_is_listed_again(tmp_path: Path, listed: list[str]) -> None:
    """Within the racy window the times cannot be trusted to tell a later change apart."""
    ws = tmp_path / "ws"
    _files(ws / "a", 1)  # changed now
    scan_git_control([ws])
    listed.clear()
    scan_git_control([ws])
    assert str(ws / "a") in listed


def test_a_path_too_long_to_list_by_name_is_named_not_entered(tmp_path: Path) -> None:
    """Past MAX_PATH_CHARS (and on past PATH_MAX, where git itself stops), the first folder too
    deep is returned whole; nothing below it is looked at."""
    folder = tmp_path / "ws"
    while len(str(folder)) <= MAX_PATH_CHARS:
        folder = folder / ("d" * 200)
    folder.mkdir(parents=True)
    _make_below(folder, ["d" * 200] * 6)  # on past 4,096 characters
    scan = scan_git_control([tmp_path / "ws"])
    assert [(u.path, u.reason) for u in scan.unlisted] == [
        (folder, f"its path is longer than {MAX_PATH_CHARS:,} characters")
    ]


def _make_below(folder: Path, names: list[str]) -> None:
    """Folders nested below `folder`, made from descriptors: past PATH_MAX a path cannot name them."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=descriptor)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    finally:
        os.close(descriptor)


@NOT_ROOT
def test_a_folder_that_cannot_be_read_or_searched_is_named_and_offered_to_the_remedy(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "a" / "sub" / ".git").mkdir(parents=True)
    (ws / "b").mkdir()
    (ws / "a").chmod(0o311)  # searchable, not readable: git reaches sub/.git, a listing does not
    (ws / "b").chmod(0o600)  # readable, not searchable
    try:
        offered: list[Path] = []

        def refuse(folder: Path, status: os.stat_result) -> bool:
            offered.append(folder)
            return False

        scan = scan_git_control([ws], make_listable=refuse)
        assert sorted(offered) == [ws / "a", ws / "b"]
        assert sorted((u.path, u.reason) for u in scan.unlisted) == [
            (ws / "a", "you may not read or search it"),
            (ws / "b", "you may not read or search it"),
        ]

        def give_back(folder: Path, status: os.stat_result) -> bool:
            folder.chmod(0o700)
            return True

        assert _found([ws], make_listable=give_back) == [ws / "a" / "sub" / ".git"]
    finally:
        for name in ("a", "b"):
            (ws / name).chmod(0o700)


def test_a_folder_passed_over_is_not_entered_while_it_is_that_same_folder(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "sealed" / "sub" / ".git").mkdir(parents=True)
    sealed = {str(ws / "sealed"): (ws / "sealed").stat().st_ino}
    assert _found([ws], passed_over=sealed) == []
    (ws / "sealed").rename(ws / "moved")  # renamed away, a new folder made in its place
    (ws / "sealed" / ".git").mkdir(parents=True)
    assert sorted(_found([ws], passed_over=sealed)) == [ws / "moved" / "sub" / ".git", ws / "sealed" / ".git"]


def test_no_new_folder_is_listed_once_the_kept_listings_are_full(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "a").mkdir(parents=True)
    scan_git_control([ws])
    (ws / "a" / "b").mkdir()
    scan = scan_git_control([ws], keep_at_most=len(folder_listings._kept))
    assert [(u.path, u.reason) for u in scan.unlisted] == [
        (ws / "a" / "b", f"the check keeps at most {len(folder_listings._kept):,} folders' listings")
    ]


def test_past_the_cap_only_the_listings_this_scan_went_through_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    (one / "a").mkdir(parents=True)
    (two / "b").mkdir(parents=True)
    scan_git_control([one, two])
    monkeypatch.setattr(folder_listings, "MAX_KEPT_LISTINGS", 2)
    scan_git_control([one])
    assert sorted(folder for _, folder in folder_listings._kept) == [str(one), str(one / "a")]


GONE: dict[str, Callable[[Path], object]] = {
    "removed": lambda folder: folder.rmdir(),
    "replaced by a link": lambda folder: (folder.rmdir(), folder.symlink_to("/etc")),
}


@pytest.mark.parametrize("name", GONE)
def test_a_folder_gone_since_its_folder_was_listed_is_nothing_to_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    ws = tmp_path / "ws"
    (ws / "x").mkdir(parents=True)
    real = folder_listings._list

    def then_gone(folder: str, read: folder_listings.Reader[object]) -> object:
        listing = real(folder, read)
        if folder == str(ws):
            GONE[name](ws / "x")
        return listing

    monkeypatch.setattr(folder_listings, "_list", then_gone)
    assert scan_git_control([ws]).unlisted == ()
