"""What a repository server's launch runs, found on disk. Load-bearing direction: a change to any
file the launch runs — the program (on a PATH entry inside the workspace, or `./server`), a
script, a `python -m` module or package, a node preload, the `node_modules/.bin` entry or package
`npx` would pick, a file that appears where one was looked for — changes the facts, and so the
fingerprint; a FIFO never hangs the check. The second corpus: nothing outside the workspace is
read (a link leading out is recorded by where it points), the user's own servers are not
inspected, and the same files give the same facts."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.gates.trust import MISSING, LaunchFacts, launch_fingerprint
from levelcode.mcp.launch_inspection import inspect_launch

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def repo_spec(workspace: Path, command: str, *args: str, **more: object) -> StdioServerSpec:
    provenance = Provenance("workspace", str(workspace / ".mcp.json"))
    return StdioServerSpec("s", command, provenance, args=args, **more)  # type: ignore[arg-type]


def facts(spec: StdioServerSpec, workspace: Path) -> LaunchFacts:
    found = inspect_launch(spec, workspace, ENV)
    assert found is not None
    return found


def changes_when(spec: StdioServerSpec, workspace: Path, change: Callable[[], None]) -> bool:
    before = launch_fingerprint(spec, facts(spec, workspace))
    change()
    return launch_fingerprint(spec, facts(spec, workspace)) != before


def test_a_script_is_hashed_and_its_change_is_seen(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text("print('hi')\n")
    spec = repo_spec(tmp_path, "python3", "-u", "server.py")
    found = facts(spec, tmp_path)
    assert found.program == shutil.which("python3")
    assert [name for name, _ in found.files] == ["server.py"]
    assert changes_when(spec, tmp_path, lambda: (tmp_path / "server.py").write_text("evil()\n"))
    assert changes_when(spec, tmp_path, (tmp_path / "server.py").unlink)


def test_the_same_files_give_the_same_facts(tmp_path: Path) -> None:
    (tmp_path / "server.js").write_text("1\n")
    spec = repo_spec(tmp_path, "node", "server.js")
    assert facts(spec, tmp_path) == facts(spec, tmp_path)
    assert not changes_when(spec, tmp_path, lambda: (tmp_path / "unrelated.txt").write_text("x"))


def test_a_program_found_on_a_path_entry_inside_the_workspace_is_hashed(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    tool = tmp_path / "bin" / "mcp-tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    spec = repo_spec(tmp_path, "mcp-tool", env=(("PATH", "bin:${PATH}"),))
    found = facts(spec, tmp_path)
    assert found.program == str(tool)
    assert "bin/mcp-tool" in found.digests()
    assert changes_when(spec, tmp_path, lambda: tool.write_text("#!/bin/sh\nevil\n"))


def test_a_relative_program_is_hashed_and_a_new_one_on_path_is_seen(tmp_path: Path) -> None:
    server = tmp_path / "server"
    server.write_text("#!/bin/sh\n")
    server.chmod(0o755)
    spec = repo_spec(tmp_path, "./server")
    assert facts(spec, tmp_path).program == str(server)
    assert changes_when(spec, tmp_path, lambda: server.write_text("#!/bin/sh\nevil\n"))
    shadowed = repo_spec(tmp_path, "python3", "x.py", env=(("PATH", f".:{ENV['PATH']}"),))

    def plant() -> None:
        (tmp_path / "python3").write_text("#!/bin/sh\nevil\n")
        (tmp_path / "python3").chmod(0o755)

    assert changes_when(shadowed, tmp_path, plant)
    assert facts(shadowed, tmp_path).program == str(tmp_path / "python3")


def test_a_python_module_or_package_in_the_workspace_is_covered(tmp_path: Path) -> None:
    spec = repo_spec(tmp_path, "python3", "-m", "mcp_server_git")
    assert facts(spec, tmp_path).digests() == {"mcp_server_git.py": MISSING, "mcp_server_git": MISSING}
    package = tmp_path / "mcp_server_git"

    def plant() -> None:
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "__main__.py").write_text("evil()\n")

    assert changes_when(spec, tmp_path, plant)
    assert {"mcp_server_git/__init__.py", "mcp_server_git/__main__.py"} <= facts(
        spec, tmp_path
    ).digests().keys()
    assert changes_when(spec, tmp_path, lambda: (package / "__main__.py").write_text("worse()\n"))


def test_node_scripts_and_preloads_resolve_like_node(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.js").write_text("1\n")
    (tmp_path / "pre.cjs").write_text("2\n")
    spec = repo_spec(tmp_path, "node", "-r", "./pre", "dist")
    assert set(facts(spec, tmp_path).digests()) == {"dist/index.js", "pre.cjs"}
    assert changes_when(spec, tmp_path, lambda: (tmp_path / "pre.cjs").write_text("evil\n"))


def test_npx_covers_a_planted_node_modules_copy_and_the_npmrc(tmp_path: Path) -> None:
    spec = repo_spec(tmp_path, "npx", "-y", "@modelcontextprotocol/server-filesystem", "/data")
    package = tmp_path / "node_modules" / "@modelcontextprotocol" / "server-filesystem"

    def plant() -> None:
        package.mkdir(parents=True)
        (package / "package.json").write_text('{"bin": {"mcp-server-filesystem": "x.js"}}')
        (package / "x.js").write_text("evil()\n")

    assert changes_when(spec, tmp_path, plant)
    digests = facts(spec, tmp_path).digests()
    assert "node_modules/@modelcontextprotocol/server-filesystem/x.js" in digests
    assert changes_when(spec, tmp_path, lambda: (package / "x.js").write_text("worse()\n"))
    assert changes_when(spec, tmp_path, lambda: (tmp_path / ".npmrc").write_text("registry=http://x/\n"))
    assert facts(spec, tmp_path).unpinned == "npx @modelcontextprotocol/server-filesystem"


def test_a_bin_link_is_followed_and_a_link_out_of_the_workspace_is_recorded_by_target(
    tmp_path: Path,
) -> None:
    workspace, outside = tmp_path / "repo", tmp_path / "elsewhere"
    (workspace / "node_modules" / ".bin").mkdir(parents=True)
    outside.mkdir()
    (outside / "tool.js").write_text("mine\n")
    (workspace / "tool.js").write_text("theirs\n")
    link = workspace / "node_modules" / ".bin" / "tool"
    link.symlink_to(outside / "tool.js")
    spec = repo_spec(workspace, "npx", "tool")
    digest = facts(spec, workspace).digests()["node_modules/.bin/tool"]
    assert digest == f"outside the workspace: {outside / 'tool.js'}"

    def retarget() -> None:
        link.unlink()
        link.symlink_to(workspace / "tool.js")

    assert changes_when(spec, workspace, retarget)
    assert not changes_when(spec, workspace, lambda: (outside / "tool.js").write_text("changed\n"))


def test_files_outside_the_workspace_are_never_read(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "repo", tmp_path / "mine.py"
    workspace.mkdir()
    outside.write_text("print(1)\n")
    spec = repo_spec(workspace, "python3", str(outside))
    assert facts(spec, workspace).files == ()
    assert not changes_when(spec, workspace, lambda: outside.write_text("print(2)\n"))


def test_a_fifo_where_a_script_should_be_does_not_hang_the_check(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "server.py")
    found = facts(repo_spec(tmp_path, "python3", "server.py"), tmp_path)
    assert found.digests()["server.py"] == "not a regular file"


def test_the_users_own_servers_and_http_are_not_inspected(tmp_path: Path) -> None:
    spec = repo_spec(tmp_path, "python3", "server.py")
    assert (
        inspect_launch(dataclasses.replace(spec, provenance=Provenance("user", "/u")), tmp_path, ENV) is None
    )


@pytest.mark.parametrize("cwd", ["sub", "${workspaceFolder}/sub"])
def test_scripts_are_found_from_the_servers_cwd(tmp_path: Path, cwd: str) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "s.py").write_text("1\n")
    spec = repo_spec(tmp_path, "python3", "s.py", cwd=cwd)
    assert "sub/s.py" in facts(spec, tmp_path).digests()
