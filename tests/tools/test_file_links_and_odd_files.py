"""The file tools opening beneath their roots (tools/rooted_files.py): what users rely on keeps
working, and what could not be opened safely fails with a clear line.

Load-bearing direction, must refuse: a link that appears after the path was checked (the check
saw a folder, the open finds a link out: staged here by handing the tools the check's answer
from before the swap), with nothing read or written outside; a FIFO, at once and never waiting
for a writer. Must pass: links inside the workspace that lead inside it or into an added folder,
for every tool, a write through such a link changing the file it leads to (the link stays); a
replaced file keeping its mode.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools import path_guard
from levelcode.tools.base import ToolContext
from levelcode.tools.file_edit import edit_file, write_file
from levelcode.tools.file_mentions import attach_path
from levelcode.tools.file_read import list_directory, read_file
from levelcode.tools.file_search import find_files, search_files


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace, added = tmp_path / "ws", tmp_path / "added"
    (workspace / "sub").mkdir(parents=True)
    added.mkdir()
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "sub" / "b.txt").write_text("beta\n")
    (added / "c.txt").write_text("gamma\n")
    (workspace / "link_file").symlink_to("a.txt")
    (workspace / "link_dir").symlink_to("sub")
    (workspace / "sub" / "link_up").symlink_to("../a.txt")
    (workspace / "link_added").symlink_to(added)
    return ToolContext(workspace=workspace, extra_roots=(added,))


async def test_links_that_stay_inside_work_for_every_tool(ctx: ToolContext) -> None:
    assert await read_file(ctx, {"path": "link_file"}) == "     1\talpha"
    assert await read_file(ctx, {"path": "link_dir/b.txt"}) == "     1\tbeta"
    assert await read_file(ctx, {"path": "sub/link_up"}) == "     1\talpha"
    assert await read_file(ctx, {"path": "link_added/c.txt"}) == "     1\tgamma"
    assert await list_directory(ctx, {"path": "link_dir"}) == "b.txt\nlink_up -> ../a.txt"
    assert "link_file" in await find_files(ctx, {"pattern": "*"})
    assert "sub/b.txt:1: beta" in await search_files(ctx, {"pattern": "beta", "path": "link_dir"})
    assert "link_file:1: alpha" in await search_files(ctx, {"pattern": "alpha"})
    assert "gamma" in attach_path(ctx, "link_added/c.txt").text
    assert "b.txt" in attach_path(ctx, "link_dir").text


async def test_a_write_through_an_inside_link_changes_its_file_and_keeps_the_link(ctx: ToolContext) -> None:
    workspace = ctx.workspace
    assert await write_file(ctx, {"path": "link_file", "content": "rewritten\n"}) == (
        "Overwrote a.txt: 10 bytes, 1 lines."
    )
    await edit_file(ctx, {"path": "link_dir/b.txt", "old_string": "beta", "new_string": "BETA"})
    await write_file(ctx, {"path": "link_added/new.txt", "content": "new\n"})
    assert (workspace / "link_file").is_symlink()
    assert (workspace / "a.txt").read_text() == "rewritten\n"
    assert (workspace / "sub" / "b.txt").read_text() == "BETA\n"
    assert (ctx.extra_roots[0] / "new.txt").read_text() == "new\n"


async def test_a_replaced_file_keeps_its_mode_and_leaves_nothing_beside_it(ctx: ToolContext) -> None:
    script = ctx.workspace / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o750)
    await edit_file(ctx, {"path": "run.sh", "old_string": "old", "new_string": "new"})
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(p.name for p in ctx.workspace.iterdir() if p.name.startswith(".levelcode")) == []


@pytest.mark.timeout(30)  # a FIFO opened to read or write waits for the other end for ever
async def test_a_fifo_is_refused_at_once(ctx: ToolContext) -> None:
    os.mkfifo(ctx.workspace / "sub" / "pipe")
    with pytest.raises(ToolError, match=r"'sub/pipe' is not a regular file or folder \(a FIFO"):
        await read_file(ctx, {"path": "sub/pipe"})
    with pytest.raises(ToolError, match=r"'sub/pipe' is not a regular file \(a FIFO"):
        await write_file(ctx, {"path": "sub/pipe", "content": "x"})
    with pytest.raises(ToolError, match="not a regular file"):
        await edit_file(ctx, {"path": "sub/pipe", "old_string": "x", "new_string": "y"})
    with pytest.raises(ToolError, match="not a regular file"):
        attach_path(ctx, "sub/pipe")
    assert "sub/b.txt:1: beta" in await search_files(ctx, {"pattern": "beta|x"})
    assert stat.S_ISFIFO((ctx.workspace / "sub" / "pipe").lstat().st_mode)


@pytest.fixture
def swapped(ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`d` was a folder when the path was checked and is a link out when it is opened: the check's
    answer (realpath) is the one it gave before the swap."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("outside secret\n")
    (ctx.workspace / "d").symlink_to(outside)
    real = path_guard._real

    def as_before_the_swap(path: Path) -> Path:
        found = real(path)
        return ctx.workspace / "d" / found.relative_to(outside) if found.is_relative_to(outside) else found

    monkeypatch.setattr(path_guard, "_real", as_before_the_swap)
    return outside


LINK_NOW = r"could not be opened without following a symbolic link: something on the way to .* is a link now"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (read_file, {"path": "d/secret"}),
        (write_file, {"path": "d/secret", "content": "planted\n"}),
        (write_file, {"path": "d/new.txt", "content": "planted\n"}),
        (edit_file, {"path": "d/secret", "old_string": "outside", "new_string": "planted"}),
        (list_directory, {"path": "d"}),
        (search_files, {"pattern": "secret", "path": "d"}),
        (find_files, {"pattern": "*", "path": "d"}),
    ],
)
async def test_a_link_that_appears_after_the_check_fails_the_call_clearly(
    ctx: ToolContext, swapped: Path, tool: object, args: dict[str, str]
) -> None:
    with pytest.raises(ToolError, match=LINK_NOW) as refused:
        await tool(ctx, args)  # type: ignore[operator]
    assert "outside secret" not in str(refused.value)
    assert sorted(p.name for p in swapped.iterdir()) == ["secret"]
    assert (swapped / "secret").read_text() == "outside secret\n"


def test_an_at_mention_through_a_link_that_appeared_fails_clearly(ctx: ToolContext, swapped: Path) -> None:
    with pytest.raises(ToolError, match=LINK_NOW):
        attach_path(ctx, "d/secret")
