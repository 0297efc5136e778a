"""The directory walk behind find_files and search_files: .gitignore files at every level, .git
skipped, no symlink followed, and the glob dialect the tools document."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.tools.file_walk import FileWalk, glob_matcher


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.py", "a/b/c.py", True),
        ("**/*.py", "c.py", True),
        ("*.py", "a/b/c.py", True),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/x/a.py", False),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("*.{md,txt}", "docs/a.txt", True),
        ("*.{md,txt}", "docs/a.py", False),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file10.txt", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "b.txt", False),
        ("[a-c].txt", "b.txt", True),
        ("./src/*.py", "src/a.py", True),
        ("a+b.txt", "a+b.txt", True),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert (glob_matcher(pattern).match(path) is not None) is matches


def _walk(root: Path, **kwargs: int) -> list[str]:
    return [
        path.relative_to(root).as_posix()
        for path in (found.path for found in FileWalk(root, (root,), **kwargs))
    ]


def test_gitignore_files_apply_at_their_own_level_and_below(tmp_path: Path) -> None:
    for name in ("a.log", "keep.log", "sub/b.log", "sub/c.txt", "sub/deeper/d.txt", "other/c.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / ".gitignore").write_text("*.log\n!keep.log\n")
    (tmp_path / "sub" / ".gitignore").write_text("c.txt\ndeeper/\n")
    assert _walk(tmp_path) == [".gitignore", "keep.log", "other/c.txt", "sub/.gitignore"]


def test_gitignore_above_the_search_root_still_applies(tmp_path: Path) -> None:
    (tmp_path / "src" / "gen").mkdir(parents=True)
    (tmp_path / "src" / "gen" / "x.py").write_text("")
    (tmp_path / "src" / "y.py").write_text("")
    (tmp_path / ".gitignore").write_text("gen/\n")
    root = tmp_path / "src"
    assert [found.path.relative_to(root).as_posix() for found in FileWalk(root, (tmp_path,))] == ["y.py"]


def test_git_directories_and_symlinked_directories_are_not_entered(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("")
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.txt").write_text("")
    (tmp_path / "loop").symlink_to(tmp_path)
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    (tmp_path / "file_link").symlink_to(tmp_path / "real" / "f.txt")
    assert _walk(tmp_path) == ["file_link", "real/f.txt"]


def test_the_walk_stops_at_its_budget(tmp_path: Path) -> None:
    for n in range(20):
        (tmp_path / f"{n:02}.txt").write_text("")
    walk = FileWalk(tmp_path, (tmp_path,), max_entries=5)
    assert len(list(walk)) == 5
    assert walk.truncated
