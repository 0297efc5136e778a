"""write_file and edit_file: what they change and report, what they refuse, and when they ask.

Approval rule, load-bearing direction: outside autopilot every write or edit inside the workspace
asks first (kind "edit", with the path and a diff); on autopilot they run without asking — and the
path guard still refuses anything outside, which test_path_guard covers. Writes under `.git/` and
`.levelcode/` ask even on autopilot: test_protected_paths covers them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.file_edit import EDIT_FILE, WRITE_FILE, edit_file, write_file


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


async def test_write_creates_parents_and_reports_size(ctx: ToolContext, tmp_path: Path) -> None:
    report = await write_file(ctx, {"path": "a/b/c.txt", "content": "h\u00e9\nworld\n"})
    assert (tmp_path / "a/b/c.txt").read_text() == "h\u00e9\nworld\n"
    assert report == "Created a/b/c.txt: 10 bytes, 2 lines."


async def test_write_overwrites_and_keeps_line_endings(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old")
    report = await write_file(ctx, {"path": "a.txt", "content": "x\r\ny"})
    assert (tmp_path / "a.txt").read_bytes() == b"x\r\ny"
    assert report == "Overwrote a.txt: 4 bytes, 2 lines."


async def test_write_refuses_a_directory(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await write_file(ctx, {"path": "d", "content": ""})


async def test_edit_replaces_exactly_one_match(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\nb = 2\r\nc = 3\n")
    report = await edit_file(ctx, {"path": "a.py", "old_string": "b = 2", "new_string": "b = 20"})
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\nb = 20\r\nc = 3\n"
    assert report == "Replaced 1 occurrence in a.py (at line 2)."


async def test_edit_refuses_no_match(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    with pytest.raises(ToolError, match=r"not found .*\(0 matches\)"):
        await edit_file(ctx, {"path": "a.py", "old_string": "a  = 1", "new_string": "x"})


async def test_edit_refuses_several_matches_and_says_how_many(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\nx\nx\n")
    with pytest.raises(ToolError, match="matches 3 places"):
        await edit_file(ctx, {"path": "a.py", "old_string": "x", "new_string": "y"})
    assert (tmp_path / "a.py").read_text() == "x\nx\nx\n"


async def test_edit_replace_all(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\nx\nx\n")
    report = await edit_file(ctx, {"path": "a.py", "old_string": "x", "new_string": "y", "replace_all": True})
    assert (tmp_path / "a.py").read_text() == "y\ny\ny\n"
    assert report == "Replaced 3 occurrences in a.py (first at line 1)."


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [("", "x", "must not be empty"), ("same", "same", "nothing would change")],
)
async def test_edit_refuses_pointless_edits(
    ctx: ToolContext, tmp_path: Path, old: str, new: str, message: str
) -> None:
    (tmp_path / "a.py").write_text("same\n")
    with pytest.raises(ToolError, match=message):
        await edit_file(ctx, {"path": "a.py", "old_string": old, "new_string": new})


async def test_edit_refuses_binary_and_non_utf8(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"\x00\x01")
    (tmp_path / "l.txt").write_bytes(b"caf\xe9")
    with pytest.raises(ToolError, match="binary"):
        await edit_file(ctx, {"path": "b.bin", "old_string": "a", "new_string": "b"})
    with pytest.raises(ToolError, match="not UTF-8"):
        await edit_file(ctx, {"path": "l.txt", "old_string": "caf", "new_string": "b"})


async def test_edit_refuses_a_missing_file(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await edit_file(ctx, {"path": "nope.py", "old_string": "a", "new_string": "b"})


def test_write_asks_with_a_preview_unless_on_autopilot(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    request = WRITE_FILE.approval(ctx, {"path": "a.txt", "content": "one\nthree\n"})
    assert request is not None
    assert (request.kind, request.title) == ("edit", "Write file · a.txt")
    assert "-two" in request.body
    assert "+three" in request.body
    autopilot = ToolContext(workspace=tmp_path, autopilot=True)
    assert WRITE_FILE.approval(autopilot, {"path": "a.txt", "content": "x"}) is None


def test_creating_a_file_asks_too(ctx: ToolContext) -> None:
    request = WRITE_FILE.approval(ctx, {"path": "new/file.txt", "content": "hello\n"})
    assert request is not None
    assert request.title == "Create file · new/file.txt"
    assert "+hello" in request.body


def test_edit_asks_with_the_diff_unless_on_autopilot(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\nb = 2\n")
    args = {"path": "a.py", "old_string": "b = 2", "new_string": "b = 3"}
    request = EDIT_FILE.approval(ctx, args)
    assert request is not None
    assert request.kind == "edit"
    assert ("-b = 2" in request.body, "+b = 3" in request.body) == (True, True)
    assert EDIT_FILE.approval(ToolContext(workspace=tmp_path, autopilot=True), args) is None


def test_previews_are_short_and_show_control_characters(ctx: ToolContext) -> None:
    request = WRITE_FILE.approval(ctx, {"path": "big.txt", "content": "x\n" * 500 + "\x1b[2J\n"})
    assert request is not None
    assert len(request.body) <= 61
    short = WRITE_FILE.approval(ctx, {"path": "esc.txt", "content": "\x1b[2J\n"})
    assert short is not None
    assert all("\x1b" not in line for line in short.body)
    assert any("\\x1b" in line for line in short.body)


def test_a_path_outside_needs_no_card_because_the_run_refuses_it(ctx: ToolContext) -> None:
    assert WRITE_FILE.approval(ctx, {"path": "/etc/passwd", "content": "x"}) is None
