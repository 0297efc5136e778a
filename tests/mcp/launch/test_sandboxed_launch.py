"""A stdio server spawned in the sandbox (mcp/launch/sandboxed_launch.py), asked of the server itself and of
/proc. Load-bearing direction: a server that must be confined where there is no sandbox is never
spawned (ServerStartError, nothing started); a confined server still carries the parent-death
signal, and closing it — or reaping the hub — leaves no process of its group (bwrap, the server,
grandchildren that ignore SIGTERM); a `.git` it plants in a folder it may write is moved away while
it runs and when it ends. The second corpus: it speaks stdio through bwrap, starts in its own
folder, its caches point there, a repository server's folder is its own per workspace, its way out
is its launcher's registry (and your entry's hosts), and a program under /tmp is shown in its
folder."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
from pathlib import Path

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.sandbox_entry import SandboxRequest
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.sandboxed_launch import own_folder, program_folders, server_route
from levelcode.mcp.launch.server_box import ServerBox, server_box
from levelcode.mcp.live.connection import connect
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.platform import paths
from levelcode.policy.network_hosts import launcher_registry
from levelcode.sandbox.egress_setup import REPOSITORY_SERVER_HINT, USER_SERVER_HINT
from tests.support.processes import group_members, read_pids, survivors
from tests.support.sandbox import assumed_confinement, missing_confinement
from tests.support.servers import fault_spec

REPOSITORY = Provenance("workspace", "/repo/.mcp.json")


@pytest.fixture
def options(tmp_path: Path) -> ConnectOptions:
    (tmp_path / "repo").mkdir()
    return ConnectOptions(workspace=tmp_path / "repo", startup_timeout=15, servers_dir=tmp_path / "servers")


def confined_spec(tmp_path: Path, *flags: str) -> StdioServerSpec:
    """The fault server in the sandbox; `out/` is writable, so it can record its pids there."""
    (tmp_path / "out").mkdir(exist_ok=True)
    spec = fault_spec(*flags, pid_file=tmp_path / "out" / "pids")
    return dataclasses.replace(spec, sandbox=SandboxRequest(write=(str(tmp_path / "out"),)))


@pytest.mark.sandbox
async def test_a_confined_server_speaks_stdio_from_its_own_folder(
    tmp_path: Path, options: ConnectOptions
) -> None:
    connection = await connect(confined_spec(tmp_path), options, hint="legacy")
    try:
        seen = json.loads((await connection.call_tool("whereami", {})).text)
    finally:
        await connection.close()
    own = paths.server_dir("fault", options.servers_dir)
    assert seen["cwd"] == str(own)
    assert seen["env"]["TMPDIR"] == "/tmp"
    assert seen["env"]["XDG_CACHE_HOME"] == str(own)
    assert seen["pdeathsig"] == signal.SIGKILL  # bwrap's --die-with-parent, inside


@pytest.mark.sandbox
async def test_reaping_a_confined_server_leaves_nothing_of_its_group(
    tmp_path: Path, options: ConnectOptions
) -> None:
    spec = confined_spec(tmp_path, "--grandchildren", "2", "--ignore-sigterm", "--linger")
    hub = McpHub(options)
    await hub.start([spec])
    connection = hub.connection("fault")
    assert connection is not None, hub.servers["fault"].status
    assert connection.pid is not None
    members = group_members(connection.pid)
    assert len(members) >= 5  # bwrap, its init in the new pid namespace, the server, two sleepers
    await hub.reap_all()
    assert survivors(members, within=0) == []


async def test_without_a_sandbox_a_server_that_must_be_confined_is_never_spawned(
    tmp_path: Path, options: ConnectOptions
) -> None:
    spec = dataclasses.replace(fault_spec(pid_file=tmp_path / "pids"), sandbox=SandboxRequest())
    options = dataclasses.replace(options, sandbox=missing_confinement())
    with pytest.raises(ServerStartError, match=r"it must run in the sandbox \(its entry asks for it\), but"):
        await connect(spec, options, hint="legacy")
    approved = dataclasses.replace(spec, sandbox=None, provenance=REPOSITORY)
    with pytest.raises(ServerStartError, match="you approved it sandboxed"):
        await connect(approved, options, hint="legacy", sandbox="own")
    assert read_pids(tmp_path / "pids") == []


def test_a_repository_servers_folder_is_its_own_per_workspace_and_name(tmp_path: Path) -> None:
    spec = dataclasses.replace(fault_spec(pid_file=tmp_path / "pids"), provenance=REPOSITORY)
    servers = tmp_path / "servers"
    here = own_folder(spec, tmp_path / "a", servers)
    assert here == own_folder(spec, tmp_path / "a", servers)
    assert here != own_folder(spec, tmp_path / "b", servers)
    assert here != own_folder(dataclasses.replace(spec, name="other"), tmp_path / "a", servers)
    assert here != paths.server_dir("fault", servers)  # never your own server's folder
    user = fault_spec(pid_file=tmp_path / "pids")
    assert own_folder(user, tmp_path / "a", servers) == paths.server_dir("fault", servers)


@pytest.mark.sandbox
async def test_what_a_confined_server_plants_for_git_is_moved_while_it_runs_and_when_it_ends(
    tmp_path: Path, options: ConnectOptions
) -> None:
    """The server writes `out/`: a `.git` it makes there is moved away by the check every few
    seconds while it runs, and one it makes just before it is closed by the check at its end."""
    out = tmp_path / "out"
    spec = confined_spec(tmp_path, "--probes")
    connection = await connect(spec, options, hint="legacy")
    try:
        wrote = await connection.call_tool("try_write", {"path": str(out / ".git")})
        assert wrote.text == f"wrote {out / '.git'}"
        async with asyncio.timeout(20):  # the watcher looks every few seconds
            while (out / ".git").exists():
                await asyncio.sleep(0.1)  # polling a file nothing signals, with a deadline
        assert any(line.startswith("[sandbox] moved .git ") for line in connection.session.diagnostics())
        (out / "late").mkdir()
        await connection.call_tool("try_write", {"path": str(out / "late" / ".git")})
    finally:
        await connection.close()
    assert not (out / "late" / ".git").exists()
    moved = list((paths.state_dir() / "sandbox" / "quarantine").glob("*/out/late/.git"))
    assert len(moved) == 1
    assert moved[0].read_text() == "written by the server\n"


# --- the way out, and programs under /tmp ------------------------------------------------------------


def launch_of(argv: list[str], cwd: Path, path: str = "/usr/bin:/bin") -> StdioLaunch:
    return StdioLaunch("s", tuple(argv), {"PATH": path}, str(cwd))


def test_a_program_under_tmp_is_shown_in_its_folder(tmp_path: Path) -> None:
    """tmp_path lies under /tmp: the program's folder (a `bin` or `.bin` folder's parent) is shown; a file an
    argument names in /tmp itself stays hidden; a program in /tmp itself is refused, saying why."""
    spec = fault_spec(pid_file=tmp_path / "pids")
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "tool").write_text("#!/bin/sh\n")
    (venv / "tool").chmod(0o755)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "server.py").write_text("")
    launch = launch_of(["tool", str(tmp_path / "scripts" / "server.py"), "/etc/hosts"], tmp_path, str(venv))
    assert program_folders(spec, launch) == [tmp_path / "venv", tmp_path / "scripts"]
    assert program_folders(spec, launch_of(["/bin/sh", "-c", "true"], tmp_path)) == []  # not under /tmp
    # an npm package's command links from node_modules/.bin into the package beside it
    package = tmp_path / "node_modules" / "pkg"
    package.mkdir(parents=True)
    (package / "cli.js").write_text("")
    (package / "cli.js").chmod(0o755)
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "pkg").symlink_to("../pkg/cli.js")
    npm_launch = launch_of(["pkg"], tmp_path, str(tmp_path / "node_modules" / ".bin"))
    assert program_folders(spec, npm_launch) == [tmp_path / "node_modules"]
    loose = Path("/tmp") / f"levelcode-test-{os.getpid()}.py"
    loose.write_text("")
    try:
        # a program outside /tmp (not the test's Python: a checkout under /tmp has it there)
        assert program_folders(spec, launch_of(["/bin/sh", str(loose)], tmp_path)) == []
        loose.chmod(0o755)
        with pytest.raises(ServerStartError, match=r"lies in /tmp itself, which is private in the sandbox"):
            program_folders(spec, launch_of([str(loose)], tmp_path))
    finally:
        loose.unlink()


@pytest.mark.parametrize(
    ("command", "tier", "listed", "public", "hint"),
    [
        ("npx", "workspace", [], ["registry.npmjs.org"], REPOSITORY_SERVER_HINT),
        ("uvx", "user", [], ["pypi.org", "files.pythonhosted.org"], USER_SERVER_HINT),
        ("python3", "workspace", [], [], REPOSITORY_SERVER_HINT),
    ],
)
def test_a_confined_servers_way_out_is_its_launchers_registry(
    tmp_path: Path, command: str, tier: str, listed: list[str], public: list[str], hint: str
) -> None:
    spec = StdioServerSpec(name="s", command=command, provenance=Provenance(tier, "/f"))  # type: ignore[arg-type]
    box = server_box(spec, "own") if tier == "workspace" else ServerBox(registry=launcher_registry(command))
    assert box is not None
    route = server_route(spec, box, assumed_confinement())
    assert route.rules.texts() == [*listed, *public]
    assert route.hint == hint
    assert route.socket_dir.parent == paths.state_dir() / "sandbox" / "egress"


def test_your_hosts_are_listed_and_a_registry_you_configured_may_be_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:4873/")
    spec = StdioServerSpec(name="s", command="npx", provenance=Provenance("user", "/f"))
    box = ServerBox(hosts=("api.example.com",), registry="npm")
    route = server_route(spec, box, assumed_confinement())
    assert [e.text() for e in route.rules.listed] == ["api.example.com", "127.0.0.1:4873"]
    assert route.rules.public == ()
    assert dict(route.environment) == {"npm_config_registry": "http://127.0.0.1:4873/"}
