"""What a repository server's launch runs, found on disk. Load-bearing direction: a change to any
file the launch runs — the program (on a PATH entry inside the workspace, or `./server`), a
script, a `python -m` module or package, a node preload, the `node_modules/.bin` entry or package
`npx` would pick, a file that appears where one was looked for, and a file the interpreter can
import from the folder it looks in first (a planted `json.py` beside a Python script, a package in
the `node_modules` beside a node script) — changes the facts, and so the fingerprint; a FIFO never
hangs the check, and a huge folder is checked up to a bound the facts name. The second corpus:
nothing outside the workspace is read (a link leading out is recorded by where it points), the
user's own servers are not inspected, the same files give the same facts, and files no import
reads (`__pycache__`, whose bytecode a repository's server never reads, a hidden or named virtual
environment, documents) change nothing."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.launch.inspection import inspect_launch
from levelcode.mcp.launch.trust import MISSING, LaunchFacts, launch_fingerprint

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


# --- what the interpreter can import from the folder it looks in first -----------------------------


def plant(workspace: Path, relative: str, text: str = "evil()\n") -> Callable[[], None]:
    def write() -> None:
        path = workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    return write


def python_server(workspace: Path) -> StdioServerSpec:
    """`python3 server.py`, beside its own helper module and package (the server's own imports)."""
    plant(workspace, "server.py", "import helper, lib.sub.deep\n")()
    plant(workspace, "helper.py", "X = 1\n")()
    plant(workspace, "lib/__init__.py", "")()
    plant(workspace, "lib/sub/deep.py", "Y = 1\n")()
    return repo_spec(workspace, "python3", "server.py")


# Must change the facts: each would run, unasked, on the next start of an approved server.
PYTHON_PLANTS = {
    "json.py beside the script": "json.py",
    "a json package": "json/__init__.py",
    "sourceless bytecode": "json.pyc",
    "an extension module": "json.cpython-311-x86_64-linux-gnu.so",
    "a stable-ABI extension module": "json.abi3.so",
    "part of a namespace package": "google/protobuf/__init__.py",
    "the server's own module, edited": "helper.py",
    "a module deep in its own package, edited": "lib/sub/deep.py",
}
# Must not: no import reads them (bytecode is kept outside the workspace, resolve.py).
PYTHON_IGNORED = {
    "bytecode Python writes": "__pycache__/helper.cpython-311.pyc",
    "a document": "docs/notes.md",
    "a hidden virtual environment": ".venv/lib/python3.11/site-packages/json.py",
    "node_modules": "node_modules/x/json.py",
    "a folder no import can name": "my-scripts/json.py",
}


@pytest.mark.parametrize("relative", PYTHON_PLANTS.values(), ids=PYTHON_PLANTS.keys())
def test_a_file_python_would_import_from_the_scripts_folder_is_covered(tmp_path: Path, relative: str) -> None:
    spec = python_server(tmp_path)
    assert changes_when(spec, tmp_path, plant(tmp_path, relative))


@pytest.mark.parametrize("relative", PYTHON_IGNORED.values(), ids=PYTHON_IGNORED.keys())
def test_files_no_import_reads_are_not_covered(tmp_path: Path, relative: str) -> None:
    spec = python_server(tmp_path)
    assert not changes_when(spec, tmp_path, plant(tmp_path, relative))


def test_a_named_virtual_environment_is_not_walked(tmp_path: Path) -> None:
    spec = python_server(tmp_path)
    plant(tmp_path, "venv/pyvenv.cfg", "home = /usr\n")()
    assert not changes_when(spec, tmp_path, plant(tmp_path, "venv/lib/python3.11/site-packages/x.py"))


@pytest.mark.parametrize(
    "argv",
    [("-m", "server"), ("-c", "import helper"), ("tools/server.py",), ("-u", "./tools/../tools/server.py")],
)
def test_the_folder_first_on_sys_path_is_covered_for_modules_inline_code_and_scripts_in_folders(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    plant(tmp_path, "server.py", "1\n")()
    plant(tmp_path, "tools/server.py", "1\n")()
    folder = "tools/" if any("tools" in word for word in argv) else ""
    spec = repo_spec(tmp_path, "python3", *argv)
    assert changes_when(spec, tmp_path, plant(tmp_path, f"{folder}json.py"))


def test_a_linked_script_imports_from_the_folder_of_its_target(tmp_path: Path) -> None:
    plant(tmp_path, "real/server.py", "1\n")()
    (tmp_path / "server.py").symlink_to(tmp_path / "real" / "server.py")
    spec = repo_spec(tmp_path, "python3", "server.py")
    assert changes_when(spec, tmp_path, plant(tmp_path, "real/json.py"))


def test_a_link_to_a_folder_is_recorded_by_where_it_points_and_not_followed(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "repo", tmp_path / "elsewhere"
    spec = python_server(workspace)
    outside.mkdir()
    (workspace / "json").symlink_to(outside, target_is_directory=True)
    assert facts(spec, workspace).digests()["json"] == f"outside the workspace: {outside}"
    assert not changes_when(spec, workspace, plant(outside, "__init__.py"))  # the user's own files


def test_uv_run_and_uvx_from_a_local_project_cover_what_the_project_imports(tmp_path: Path) -> None:
    plant(tmp_path, "pyproject.toml", "[project]\nname = 'srv'\n")()
    plant(tmp_path, "src/srv/__init__.py", "1\n")()
    for argv in (
        ("uv", "run", "srv"),
        ("uvx", "--from", ".", "srv"),
        ("uv", "run", "--directory", ".", "srv"),
    ):
        spec = repo_spec(tmp_path, *argv)
        assert "src/srv/__init__.py" in facts(spec, tmp_path).digests(), argv
        assert changes_when(spec, tmp_path, plant(tmp_path, "src/srv/__init__.py", f"{argv}\n"))
        assert changes_when(spec, tmp_path, plant(tmp_path, "pyproject.toml", f"# {argv}\n"))


def test_a_projects_src_is_checked_on_its_own_when_the_project_is_too_large_to_check_whole(
    tmp_path: Path,
) -> None:
    """`uv run` in a project of more than MAX_FILES files: the walk of the project stops in a
    package sorted before `src/`, and `src/` — what the editable install imports — is still
    checked, under its own bound."""
    from levelcode.mcp.launch.importable_files import MAX_FILES

    plant(tmp_path, "pyproject.toml", "[project]\nname = 'srv'\n")()
    plant(tmp_path, "src/srv/__init__.py", "1\n")()
    (tmp_path / "app").mkdir()
    for index in range(MAX_FILES + 1):
        (tmp_path / "app" / f"m{index:04}.py").write_text("")
    spec = repo_spec(tmp_path, "uv", "run", "srv")
    digests = facts(spec, tmp_path).digests()
    assert digests["…"].startswith("more files than are checked")  # the project's walk was cut
    assert "src/srv/__init__.py" in digests
    assert changes_when(spec, tmp_path, plant(tmp_path, "src/srv/__init__.py", "evil()\n"))
    assert changes_when(spec, tmp_path, plant(tmp_path, "src/srv/json.py"))


def test_a_node_script_covers_its_relative_imports_and_the_packages_beside_it(tmp_path: Path) -> None:
    plant(tmp_path, "srv/server.mjs", "import './lib/util.js';\n")()
    plant(tmp_path, "srv/lib/util.js", "1\n")()
    plant(tmp_path, "node_modules/zod/package.json", '{"name": "zod"}')()
    spec = repo_spec(tmp_path, "node", "srv/server.mjs")
    assert {"srv/lib/util.js", "node_modules/zod/package.json"} <= facts(spec, tmp_path).digests().keys()
    for relative in (
        "srv/lib/util.js",
        "srv/package.json",  # "type", "imports": how its imports resolve
        "srv/node_modules/optional/package.json",
        "node_modules/@scope/hook/package.json",
        "node_modules/zod/package.json",
    ):
        assert changes_when(spec, tmp_path, plant(tmp_path, relative, '{"v": 2}')), relative
    assert not changes_when(spec, tmp_path, plant(tmp_path, "srv/README.md"))
    assert not changes_when(spec, tmp_path, plant(tmp_path, ".git/hooks/x.js"))


SCOPED = ("@aa/one", "@aa/two", "@aa/three", "@types/node", "@types/zed", "@zz/last")


def node_server_with_packages(workspace: Path, packages: tuple[str, ...] = SCOPED) -> StdioServerSpec:
    """`node srv/server.mjs`, with `packages` (and `plain`) in the node_modules beside it."""
    plant(workspace, "srv/server.mjs", "1\n")()
    for name in (*packages, "plain"):
        plant(workspace, f"node_modules/{name}/package.json", f'{{"name": "{name}"}}')()
    return repo_spec(workspace, "node", "srv/server.mjs")


def test_every_package_of_every_scope_is_covered(tmp_path: Path) -> None:
    spec = node_server_with_packages(tmp_path)
    listed = {name for name in facts(spec, tmp_path).digests() if name.startswith("node_modules/")}
    assert listed == {f"node_modules/{name}/package.json" for name in (*SCOPED, "plain")}
    for name in (*SCOPED, "@aa/four", "@types/a-first", "@new/pkg"):  # edited, and planted anywhere
        assert changes_when(spec, tmp_path, plant(tmp_path, f"node_modules/{name}/package.json", "{}")), name


def test_a_scope_linked_elsewhere_in_the_workspace_is_listed_through_its_link(tmp_path: Path) -> None:
    """npm and pnpm link workspace packages; node resolves `@org/pkg` through a linked `@org`."""
    spec = node_server_with_packages(tmp_path)
    plant(tmp_path, "vendor/@org/first/package.json", "{}")()
    (tmp_path / "node_modules" / "@org").symlink_to(tmp_path / "vendor" / "@org", target_is_directory=True)
    assert "node_modules/@org/first/package.json" in facts(spec, tmp_path).digests()
    assert changes_when(spec, tmp_path, plant(tmp_path, "vendor/@org/second/package.json", "{}"))
    assert changes_when(spec, tmp_path, plant(tmp_path, "vendor/@org/first/package.json", '{"v": 2}'))


@pytest.mark.parametrize("link", ["node_modules/linked", "node_modules/@org", "node_modules/@aa/one"])
def test_a_package_linked_out_of_the_workspace_is_recorded_by_where_it_points_and_not_read(
    tmp_path: Path, link: str
) -> None:
    workspace, outside = tmp_path / "repo", tmp_path / "elsewhere"
    spec = node_server_with_packages(workspace)
    target = outside / ("@org" if link.endswith("@org") else "pkg")
    plant(target, "linked/package.json" if link.endswith("@org") else "package.json", "{}")()
    shutil.rmtree(workspace / link, ignore_errors=True)
    (workspace / link).symlink_to(target, target_is_directory=True)
    manifest = f"{link}/linked/package.json" if link.endswith("@org") else f"{link}/package.json"
    where = target / ("linked" if link.endswith("@org") else "") / "package.json"
    assert facts(spec, workspace).digests()[manifest] == f"outside the workspace: {where}"
    assert not changes_when(spec, workspace, lambda: where.write_text('{"mine": true}'))


def test_a_scope_of_more_packages_than_are_checked_is_cut_at_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from levelcode.mcp.launch import importable_files

    monkeypatch.setattr(importable_files, "MAX_FILES", 5)
    spec = node_server_with_packages(tmp_path, tuple(f"@many/p{index}" for index in range(9)))
    found = facts(spec, tmp_path).digests()
    assert found["node_modules/…"] == "more files than are checked: the first 5 package files"
    assert len([name for name in found if name.startswith("node_modules/@many/")]) == 5


def test_a_folder_too_large_to_check_says_so_and_its_first_files_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from levelcode.mcp.launch import importable_files
    from levelcode.mcp.launch.launch_card import fact_lines

    monkeypatch.setattr(importable_files, "MAX_FILES", 5)
    for index in range(10):
        plant(tmp_path, f"m{index}.py", "1\n")()
    spec = repo_spec(tmp_path, "python3", "m0.py")
    found = facts(spec, tmp_path)
    assert [name for name, _ in found.files] == ["m0.py", "m1.py", "m2.py", "m3.py", "m4.py", "…"]
    assert "checks:  ./: more files than are checked: the first 5 Python files" in fact_lines(found)
    assert changes_when(spec, tmp_path, plant(tmp_path, "m3.py", "2\n"))


def test_the_walk_stops_at_its_depth(tmp_path: Path) -> None:
    from levelcode.mcp.launch.importable_files import MAX_DEPTH

    spec = python_server(tmp_path)
    deep = "/".join(f"d{level}" for level in range(MAX_DEPTH + 1))
    assert changes_when(spec, tmp_path, plant(tmp_path, f"{deep[: deep.rfind('/')]}/x.py"))
    assert not changes_when(spec, tmp_path, plant(tmp_path, f"{deep}/x.py"))
