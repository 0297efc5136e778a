"""The walk that finds git's control entries (git_scan.py). Load-bearing direction (first corpus):
every git dir shape git's discovery accepts is found — HEAD beside objects and refs, or beside a
commondir alone (git 2.39 then reads the config of the common dir it names). The second corpus:
names git does not take for a repository are not found."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.sandbox import git_scan
from levelcode.sandbox.git_layout import DOT_GIT, HEAD, SUBMODULES_FILE
from levelcode.sandbox.git_scan import scan_git_control

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
    found = [entry.path for entry in scan_git_control([tmp_path]).entries]
    assert [path for path in found if path.parent == folder] == ([folder / names[0]] if is_git_dir else [])


def test_every_name_the_scan_looks_at_passes_its_first_letter_filter() -> None:
    """The filter is a speed-up: a name it drops is never looked at, whatever else says."""
    names = [DOT_GIT, SUBMODULES_FILE, HEAD, *git_scan._GIT_DIR_MARKS]
    for name in names:
        assert {name[0].lower(), name[0].upper()} <= git_scan._INTERESTING
