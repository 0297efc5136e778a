"""Where a stdio server's Python keeps its bytecode. Load-bearing direction: a repository's server
never reads bytecode from the workspace's `__pycache__` (where anything that writes the workspace
could plant a cache entry stamped like a module's source): its `PYTHONPYCACHEPREFIX` points into
its own folder, outside the workspace. The second corpus: the user's own servers are left as they
are, and an entry that sets the variable itself keeps its value (its card names it). Also the
order of the argv's filling in: the user's variables first, then the workspace's folder, whose
name must never be read as a variable."""

from __future__ import annotations

from pathlib import Path

from levelcode.mcp.config.environment import NOTHING_WITHHELD
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.launch.card_summary import is_loader_variable
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.resolve import BYTECODE_VARIABLE, filled_argv, server_launch
from levelcode.mcp.launch.sandboxed_launch import own_folder

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/home/u"}


def launch_env(spec: StdioServerSpec, workspace: Path, servers: Path) -> dict[str, str]:
    launch = server_launch(spec, ConnectOptions(workspace=workspace, servers_dir=servers), ENV)
    return dict(launch.env)


def test_a_repository_server_keeps_its_bytecode_in_its_own_folder(tmp_path: Path) -> None:
    workspace, servers = tmp_path / "repo", tmp_path / "servers"
    workspace.mkdir()
    spec = StdioServerSpec("s", "python3", Provenance("workspace", str(workspace / ".mcp.json")), ("s.py",))
    prefix = Path(launch_env(spec, workspace, servers)[BYTECODE_VARIABLE])
    assert prefix == own_folder(spec, workspace, servers) / "pycache"
    assert not prefix.is_relative_to(workspace)


def test_the_users_own_server_and_an_entry_that_names_the_variable_are_left_as_written(
    tmp_path: Path,
) -> None:
    own = StdioServerSpec("s", "python3", Provenance("user", "/u/settings.json"), ("s.py",))
    assert BYTECODE_VARIABLE not in launch_env(own, tmp_path, tmp_path / "servers")
    written = StdioServerSpec(
        "s", "python3", Provenance("workspace", "/repo/.mcp.json"), env=((BYTECODE_VARIABLE, "/cache"),)
    )
    assert launch_env(written, tmp_path, tmp_path / "servers")[BYTECODE_VARIABLE] == "/cache"
    assert is_loader_variable(BYTECODE_VARIABLE)  # so its card says it changes what gets loaded


def test_a_workspace_folder_whose_name_holds_a_reference_names_no_variable() -> None:
    """`${workspaceFolder}` is filled in after the user's variables: a folder a repository's
    archive named `${GITHUB_TOKEN}` reaches the server as that name, not as the token."""
    spec = StdioServerSpec(
        "s", "srv", Provenance("workspace", "/w/.mcp.json"), args=("${workspaceFolder}/x",)
    )
    environ = {"GITHUB_TOKEN": "ghp_secret"}
    argv = filled_argv(spec, Path("/w/${GITHUB_TOKEN}"), environ, NOTHING_WITHHELD)
    assert argv == ("srv", "/w/${GITHUB_TOKEN}/x")
