"""Path guard. Load-bearing direction: no path that resolves outside the workspace (and the user's
extra roots) may pass — absolute paths, `..`, `~`, and symlinks inside the workspace that point out
are all refused, by the guard and by every file tool. The second corpus: ordinary paths inside the
workspace, existing or not, pass and resolve where expected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.path_guard import allowed_roots, display_path, resolve_in_roots
from levelcode.tools.registry import builtin_tools

MUST_REFUSE = [
    "/etc/passwd",
    "/",
    "..",
    "../outside/secret.txt",
    "../../etc",
    "sub/../../outside/secret.txt",
    "./../outside",
    "~",
    "~/notes.txt",
    "link_out",
    "link_out/secret.txt",
    "link_out/new.txt",
    "link_file",
    "dangling",
    "sub/link_up",
    "sub/link_up/outside/secret.txt",
    "{tmp}/outside/secret.txt",
    "{tmp}/ws-sibling/file.txt",
    "{tmp}/ws/../outside",
    "{tmp}/ws/link_out/secret.txt",
]

MUST_ALLOW = [
    ("a.txt", "a.txt"),
    ("./a.txt", "a.txt"),
    ("sub/b.txt", "sub/b.txt"),
    ("sub/../a.txt", "a.txt"),
    ("sub//b.txt", "sub/b.txt"),
    (".", "."),
    ("sub/", "sub"),
    ("new/dir/file.txt", "new/dir/file.txt"),
    ("link_in", "a.txt"),
    ("sub/link_sibling", "a.txt"),
    ("{tmp}/ws/a.txt", "a.txt"),
    ("{tmp}/ws/sub/../sub/b.txt", "sub/b.txt"),
    ("dotdot..name", "dotdot..name"),
]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "a.txt").write_text("a\n")
    (workspace / "sub" / "b.txt").write_text("b\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (tmp_path / "ws-sibling").mkdir()
    (workspace / "link_out").symlink_to(outside)
    (workspace / "link_file").symlink_to(outside / "secret.txt")
    (workspace / "dangling").symlink_to(outside / "not-yet.txt")
    (workspace / "sub" / "link_up").symlink_to(tmp_path)
    (workspace / "link_in").symlink_to(workspace / "a.txt")
    (workspace / "sub" / "link_sibling").symlink_to(Path("..") / "a.txt")
    return ToolContext(workspace=workspace)


def _path(raw: str, tmp_path: Path) -> str:
    return raw.replace("{tmp}", str(tmp_path))


@pytest.mark.parametrize("raw", MUST_REFUSE)
def test_escapes_are_refused(ctx: ToolContext, tmp_path: Path, raw: str) -> None:
    with pytest.raises(ToolError) as caught:
        resolve_in_roots(ctx, _path(raw, tmp_path))
    message = str(caught.value)
    assert "outside" in message
    assert str(allowed_roots(ctx)[0]) in message
    assert "--add-dir" in message
    assert "allowedDirectories" in message


@pytest.mark.parametrize(("raw", "expected"), MUST_ALLOW)
def test_paths_inside_the_workspace_pass(ctx: ToolContext, tmp_path: Path, raw: str, expected: str) -> None:
    resolved = resolve_in_roots(ctx, _path(raw, tmp_path))
    assert display_path(ctx, resolved) == expected


def test_a_symlink_escape_is_named_as_such(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="through a symbolic link"):
        resolve_in_roots(ctx, "link_out/secret.txt")


def test_extra_roots_are_allowed_and_nothing_else(ctx: ToolContext, tmp_path: Path) -> None:
    extra = ToolContext(workspace=ctx.workspace, extra_roots=(tmp_path / "outside",))
    assert resolve_in_roots(extra, str(tmp_path / "outside" / "secret.txt")).name == "secret.txt"
    assert resolve_in_roots(extra, "link_out/secret.txt").name == "secret.txt"
    with pytest.raises(ToolError):
        resolve_in_roots(extra, str(tmp_path / "ws-sibling"))


def test_a_workspace_reached_through_a_symlink_still_works(tmp_path: Path, ctx: ToolContext) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(ctx.workspace)
    via_alias = ToolContext(workspace=alias)
    assert display_path(via_alias, resolve_in_roots(via_alias, "sub/b.txt")) == "sub/b.txt"
    with pytest.raises(ToolError):
        resolve_in_roots(via_alias, "../outside/secret.txt")


def test_a_nul_byte_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="NUL"):
        resolve_in_roots(ctx, "a.txt\x00/../../etc/passwd")


ESCAPING_CALLS = [
    ("read_file", {"path": "link_file"}),
    ("read_file", {"path": "../outside/secret.txt"}),
    ("write_file", {"path": "dangling", "content": "x"}),
    ("write_file", {"path": "link_out/new.txt", "content": "x"}),
    ("edit_file", {"path": "link_file", "old_string": "secret", "new_string": "x"}),
    ("list_directory", {"path": "link_out"}),
    ("find_files", {"pattern": "*", "path": "link_out"}),
    ("search_files", {"pattern": "secret", "path": "link_out"}),
    ("search_files", {"pattern": "secret", "path": "/"}),
]


@pytest.mark.parametrize(("tool_name", "args"), ESCAPING_CALLS)
async def test_every_file_tool_refuses_escapes(
    ctx: ToolContext, tmp_path: Path, tool_name: str, args: dict[str, object]
) -> None:
    tool = next(tool for tool in builtin_tools() if tool.name == tool_name)
    with pytest.raises(ToolError, match="outside"):
        await tool.run(ctx, args)
    assert (tmp_path / "outside" / "secret.txt").read_text() == "secret\n"
    assert not (tmp_path / "outside" / "not-yet.txt").exists()
    assert not (tmp_path / "outside" / "new.txt").exists()


async def test_walking_tools_do_not_follow_links_out(ctx: ToolContext) -> None:
    tools = {tool.name: tool for tool in builtin_tools()}
    found = await tools["find_files"].run(ctx, {"pattern": "**/*"})
    searched = await tools["search_files"].run(ctx, {"pattern": "secret"})
    assert "secret.txt" not in found
    assert "link_file" not in found
    assert "secret" not in searched.replace("No matches for 'secret'", "")
