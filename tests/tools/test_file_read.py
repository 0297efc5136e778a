"""read_file and list_directory: numbered, bounded output; binary files and directories refused
with a message that says what to do instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.file_read import MAX_LINES, READ_FILE, list_directory, read_file


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


async def test_lines_come_numbered_from_one(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\r\ngamma")
    assert await read_file(ctx, {"path": "a.txt"}) == "     1\talpha\n     2\tbeta\n     3\tgamma"


async def test_a_line_range_is_inclusive(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    output = await read_file(ctx, {"path": "a.txt", "start_line": 3, "end_line": 4})
    assert output == "     3\tline 3\n     4\tline 4"
    assert (await read_file(ctx, {"path": "a.txt", "start_line": 10})).endswith("10\tline 10")


async def test_a_start_past_the_end_says_so(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    assert "shorter than line 5" in await read_file(ctx, {"path": "a.txt", "start_line": 5})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"path": "a.txt", "start_line": 0}, "at least 1"),
        ({"path": "a.txt", "start_line": 5, "end_line": 2}, "before start_line"),
        ({"path": "a.txt", "start_line": "3"}, "integer"),
        ({"path": "a.txt", "start_line": True}, "integer"),
        ({}, "'path' is required"),
        ({"path": ""}, "must not be empty"),
        ({"path": "missing.txt"}, "does not exist"),
        ({"path": "."}, "is a directory"),
    ],
)
async def test_bad_arguments_get_clear_errors(
    ctx: ToolContext, tmp_path: Path, args: dict[str, object], message: str
) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    with pytest.raises(ToolError, match=message):
        await read_file(ctx, args)


async def test_long_files_are_capped_with_a_note_on_how_to_continue(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"{n}\n" for n in range(MAX_LINES + 50)))
    output = await read_file(ctx, {"path": "big.txt"})
    assert output.count("\n") == MAX_LINES
    assert f"start_line={MAX_LINES + 1}" in output.splitlines()[-1]


async def test_huge_lines_are_cut(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("x" * 100_000)
    output = await read_file(ctx, {"path": "wide.txt"})
    assert len(output) < 3000
    assert "[line cut]" in output


async def test_binary_files_are_refused_clearly(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"PK\x03\x04\x00\x00binary")
    with pytest.raises(ToolError, match="binary file"):
        await read_file(ctx, {"path": "blob.bin"})


async def test_invalid_utf8_is_shown_with_replacements(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9\n")
    assert await read_file(ctx, {"path": "latin.txt"}) == "     1\tcaf\ufffd"


async def test_directory_listing_is_sorted_and_marks_kinds(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("")
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "link").symlink_to("b.txt")
    assert await list_directory(ctx, {}) == "a_dir/\nb.txt\nlink -> b.txt"
    assert await list_directory(ctx, {"path": "a_dir"}) == "(a_dir is empty)"


async def test_listing_a_file_is_refused(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("")
    with pytest.raises(ToolError, match="not a directory"):
        await list_directory(ctx, {"path": "b.txt"})


def test_read_only_tools_never_ask(ctx: ToolContext) -> None:
    assert READ_FILE.approval(ctx, {"path": "a.txt"}) is None
