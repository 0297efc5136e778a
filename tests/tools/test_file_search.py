"""find_files and search_files: sorted, capped results that honour .gitignore and skip .git and
binary files; glob semantics as documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.file_search import find_files, search_files


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    files = {
        "README.md": "hello TODO\n",
        "src/app.py": "def main():\n    # TODO: more\n    return 1\n",
        "src/util.py": "VALUE = 2\n",
        "src/nested/deep.py": "# todo lower\n",
        "docs/guide.md": "guide\n",
        "build/out.py": "TODO generated\n",
        "node_modules/pkg/index.js": "TODO vendored\n",
        "debug.log": "TODO log\n",
        ".git/config": "TODO git\n",
        "src/.gitignore": "secret_*.py\n",
        "src/secret_key.py": "TODO hidden\n",
        ".gitignore": "build/\nnode_modules/\n*.log\n",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "image.png").write_bytes(b"\x89PNG\x00\x00TODO")
    return ToolContext(workspace=tmp_path)


async def test_find_files_is_sorted_and_honours_gitignore(ctx: ToolContext) -> None:
    assert (await find_files(ctx, {"pattern": "*.py"})).splitlines() == [
        "src/app.py",
        "src/nested/deep.py",
        "src/util.py",
    ]


async def test_find_files_under_a_subdirectory(ctx: ToolContext) -> None:
    assert await find_files(ctx, {"pattern": "*.py", "path": "src/nested"}) == "src/nested/deep.py"


async def test_find_files_caps_results(ctx: ToolContext, tmp_path: Path) -> None:
    for n in range(30):
        (tmp_path / f"f{n:02}.txt").write_text("")
    lines = (await find_files(ctx, {"pattern": "*.txt", "max_results": 10})).splitlines()
    assert lines[:2] == ["f00.txt", "f01.txt"]
    assert len(lines) == 11
    assert "20 more files" in lines[-1]


async def test_find_files_says_when_nothing_matches(ctx: ToolContext) -> None:
    assert "No files match" in await find_files(ctx, {"pattern": "*.rs"})


async def test_search_prints_file_line_text(ctx: ToolContext) -> None:
    output = await search_files(ctx, {"pattern": r"TODO"})
    assert output.splitlines() == ["README.md:1: hello TODO", "src/app.py:2:     # TODO: more"]


async def test_search_skips_ignored_git_and_binary_files(ctx: ToolContext) -> None:
    output = await search_files(ctx, {"pattern": "TODO"})
    for hidden in ("build/", "node_modules/", "debug.log", ".git/", "secret_key.py", "image.png"):
        assert hidden not in output


async def test_search_options(ctx: ToolContext) -> None:
    insensitive = await search_files(ctx, {"pattern": "todo", "case_insensitive": True, "glob": "*.py"})
    assert insensitive.splitlines() == [
        "src/app.py:2:     # TODO: more",
        "src/nested/deep.py:1: # todo lower",
    ]
    assert await search_files(ctx, {"pattern": "VALUE", "path": "src/util.py"}) == "src/util.py:1: VALUE = 2"


async def test_search_caps_results(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("hit\n" * 50)
    lines = (await search_files(ctx, {"pattern": "hit", "max_results": 5})).splitlines()
    assert len(lines) == 6
    assert "45 more matching lines" in lines[-1]


async def test_a_bad_regex_is_explained(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="not a valid Python regular expression"):
        await search_files(ctx, {"pattern": "("})


async def test_a_missing_search_path_is_explained(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await search_files(ctx, {"pattern": "x", "path": "nope"})
