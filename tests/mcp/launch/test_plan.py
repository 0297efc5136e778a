"""Where a server starts and what arguments it gets. Load-bearing direction: a user-tier server
without `cwd` never starts in the workspace, and no `${…}` in an argument is expanded except
`${workspaceFolder}`. The second corpus: an entry that opts in (`cwd`, `${workspaceFolder}`) gets
the workspace, and a repository's server starts in its workspace as its card says."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.launch.plan import launch_argv, launch_cwd, uses_private_dir
from levelcode.platform import paths

WS = Path("/work/repo")
PRIVATE = Path("/state/servers/s")
USER = StdioServerSpec("s", "python3", Provenance("user", "/u/settings.json"), args=("-m", "srv"))
REPO = dataclasses.replace(USER, provenance=Provenance("workspace", "/work/repo/.mcp.json"))


def test_a_users_server_without_cwd_starts_in_its_private_directory() -> None:
    assert launch_cwd(USER, WS, PRIVATE) == PRIVATE
    assert uses_private_dir(USER)


@pytest.mark.parametrize(
    ("cwd", "expected"),
    [
        (".", WS),
        ("sub/dir", WS / "sub/dir"),
        ("/elsewhere", Path("/elsewhere")),
        ("${workspaceFolder}", WS),
        ("${workspaceFolder}/tools", WS / "tools"),
    ],
)
def test_an_entry_with_cwd_gets_it_relative_to_the_workspace(cwd: str, expected: Path) -> None:
    for spec in (USER, REPO):
        assert launch_cwd(dataclasses.replace(spec, cwd=cwd), WS, PRIVATE) == expected
    assert not uses_private_dir(dataclasses.replace(USER, cwd=cwd))


def test_a_repository_server_starts_in_the_workspace() -> None:
    assert launch_cwd(REPO, WS, PRIVATE) == WS
    assert not uses_private_dir(REPO)


def test_only_workspace_folder_is_expanded_in_args() -> None:
    args = (
        "${workspaceFolder}",
        "--root=${workspaceFolder}/src",
        "${HOME}",
        "$HOME",
        "${X:-d}",
        "${workspace}",
    )
    argv = launch_argv(dataclasses.replace(USER, command="${workspaceFolder}/bin", args=args), WS)
    assert argv == (
        "${workspaceFolder}/bin",  # the command is never expanded
        "/work/repo",
        "--root=/work/repo/src",
        "${HOME}",
        "$HOME",
        "${X:-d}",
        "${workspace}",
    )


def test_server_directories_are_distinct_for_names_that_sanitize_alike(tmp_path: Path) -> None:
    one, two, plain = (paths.server_dir(n, tmp_path) for n in ("a/b", "a_b", "git"))
    assert one != two
    assert plain == tmp_path / "git"
    assert one.parent == two.parent == tmp_path
    assert paths.server_dir("..", tmp_path).parent == tmp_path
