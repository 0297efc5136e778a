"""MCP servers in the sandbox, end to end through the real CLI, real bwrap and real servers.
Load-bearing direction: a confined server's write outside its folders never lands, its connection
to a 127.0.0.1 listener never arrives, a repository's server approved sandboxed cannot write the
workspace unless the user chose so, and where no sandbox can be set up a server that must be
confined does not start at all. Positive control: the same calls through the same CLI with the
sandbox confining nothing (tests/support/unchecked_levelcode.py) do write and do connect, so these
tests can fail. The second corpus: what a confined server needs still works — its own folder, the
folders your entry lists, the workspace when you chose it, and the real server-filesystem reading
the workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.server_box import SandboxChoice
from levelcode.mcp.launch.trust_store import TrustStore
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, write_settings
from tests.support.listener import Listener
from tests.support.sandbox import host_folder
from tests.support.servers import FAULT_SERVER, ROOT, node_server
from tests.support.unchecked_levelcode import SWITCH

pytestmark = pytest.mark.sandbox


@dataclass(frozen=True)
class Scene:
    workspace: Path
    outside: Path  # a host folder that is not the server's: writes there must never land
    listener: Listener


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True, timeout=60)
    with host_folder() as outside, Listener() as listener:
        yield Scene(workspace, outside, listener)


def probe_entry(**extra: object) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULT_SERVER), "--probes"], **extra}


def levelcode(home: Path, workspace: Path, *args: str, confine: bool = True, **env: str) -> Any:
    """`levelcode -C WORKSPACE ARGS…`; with `confine=False` the same CLI with the sandbox's wrapper
    confining nothing (the positive control)."""
    command = [str(LEVELCODE)] if confine else [sys.executable, "-m", "tests.support.unchecked_levelcode"]
    extra = {} if confine else {SWITCH: "off"}
    return subprocess.run(
        [*command, "-C", str(workspace), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **extra, **env),
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def call(home: Path, scene: Scene, server: str, tool: str, arguments: dict[str, Any], **kw: Any) -> Any:
    return levelcode(home, scene.workspace, "mcp", "call", server, tool, json.dumps(arguments), **kw)


def repository_server(scene: Scene, home: Path, entry: dict[str, Any], sandbox: SandboxChoice | None) -> None:
    """`entry` as the workspace's `.mcp.json` server "repo", approved here (sandboxed or not)."""
    config = scene.workspace / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"repo": entry}}))
    spec = parse_workspace_file(json.loads(config.read_text()), file=str(config)).servers[0]
    TrustStore(home / "state" / "trust.json").approve(scene.workspace, spec, "approved", sandbox=sandbox)


# --- your own server, confined by its entry ----------------------------------------------------


def test_a_confined_server_cannot_write_outside_its_folders(isolated_home: Path, scene: Scene) -> None:
    allowed = scene.outside / "allowed"
    allowed.mkdir()
    entry = probe_entry(sandbox={"write": [str(allowed)]})
    write_settings(isolated_home, {"mcpServers": {"boxed": entry}})
    outside = scene.outside / "marker"
    for target in (outside, scene.workspace / "marker", Path.home() / "marker"):
        done = call(isolated_home, scene, "boxed", "try_write", {"path": str(target)})
        assert done.stdout.startswith("refused: [Errno 30] Read-only file system"), done.stdout + done.stderr
        assert not target.exists()
    done = call(isolated_home, scene, "boxed", "try_write", {"path": str(allowed / "kept")})
    assert done.stdout == f"wrote {allowed / 'kept'}\n", done.stderr
    assert (allowed / "kept").read_text() == "written by the server\n"


def test_a_confined_server_cannot_reach_a_listener_on_127_0_0_1(isolated_home: Path, scene: Scene) -> None:
    write_settings(isolated_home, {"mcpServers": {"boxed": probe_entry(sandbox={"network": False})}})
    done = call(isolated_home, scene, "boxed", "try_connect", {"port": scene.listener.port})
    assert done.stdout.startswith("refused: "), done.stdout + done.stderr
    assert scene.listener.received() == b""


def test_the_network_is_on_only_when_your_entry_says_so(isolated_home: Path, scene: Scene) -> None:
    write_settings(isolated_home, {"mcpServers": {"online": probe_entry(sandbox={"network": True})}})
    done = call(isolated_home, scene, "online", "try_connect", {"port": scene.listener.port})
    assert done.stdout == f"connected to port {scene.listener.port}\n", done.stderr
    assert b"sent by the server" in scene.listener.received()


def test_positive_control_without_confinement_the_same_calls_write_and_connect(
    isolated_home: Path, scene: Scene
) -> None:
    write_settings(isolated_home, {"mcpServers": {"boxed": probe_entry(sandbox=True)}})
    marker = scene.outside / "marker"
    done = call(isolated_home, scene, "boxed", "try_write", {"path": str(marker)}, confine=False)
    assert done.stdout == f"wrote {marker}\n", done.stderr
    assert marker.exists()
    done = call(isolated_home, scene, "boxed", "try_connect", {"port": scene.listener.port}, confine=False)
    assert done.stdout.startswith("connected"), done.stderr
    assert b"sent by the server" in scene.listener.received()


def test_your_own_server_without_the_key_stays_unconfined(isolated_home: Path, scene: Scene) -> None:
    write_settings(isolated_home, {"mcpServers": {"free": probe_entry()}})
    marker = scene.outside / "marker"
    done = call(isolated_home, scene, "free", "try_write", {"path": str(marker)})
    assert done.stdout == f"wrote {marker}\n", done.stderr


# --- a repository's server, approved sandboxed ---------------------------------------------------


def test_approved_sandboxed_a_repository_server_cannot_write_the_workspace(
    isolated_home: Path, scene: Scene
) -> None:
    repository_server(scene, isolated_home, probe_entry(), "own")
    for target in (scene.workspace / "marker", scene.outside / "marker"):
        done = call(isolated_home, scene, "repo", "try_write", {"path": str(target)})
        assert done.stdout.startswith("refused: [Errno 30]"), done.stdout + done.stderr
        assert not target.exists()
    done = call(isolated_home, scene, "repo", "try_connect", {"port": scene.listener.port})
    assert done.stdout.startswith("refused: ")
    assert scene.listener.received() == b""


def test_approved_with_the_workspace_it_writes_there_but_not_git_config(
    isolated_home: Path, scene: Scene
) -> None:
    repository_server(scene, isolated_home, probe_entry(), "workspace")
    done = call(isolated_home, scene, "repo", "try_write", {"path": str(scene.workspace / "out.txt")})
    assert done.stdout == f"wrote {scene.workspace / 'out.txt'}\n", done.stderr
    config = scene.workspace / ".git" / "config"
    before = config.read_text()
    done = call(isolated_home, scene, "repo", "try_write", {"path": str(config)})
    assert done.stdout.startswith("refused: [Errno 30]"), done.stdout
    assert config.read_text() == before
    done = call(isolated_home, scene, "repo", "try_write", {"path": str(scene.outside / "marker")})
    assert not (scene.outside / "marker").exists()


def test_a_repository_cannot_widen_its_sandbox(isolated_home: Path, scene: Scene) -> None:
    """Its entry asks for folders to write and for the network: both ignored, and reported."""
    entry = probe_entry(sandbox={"write": [str(scene.outside)], "network": True})
    repository_server(scene, isolated_home, entry, None)  # approved "unconfined": the entry wins
    done = call(isolated_home, scene, "repo", "try_write", {"path": str(scene.outside / "marker")})
    assert done.stdout.startswith("refused: [Errno 30]"), done.stdout + done.stderr
    assert not (scene.outside / "marker").exists()
    done = call(isolated_home, scene, "repo", "try_connect", {"port": scene.listener.port})
    assert done.stdout.startswith("refused: ")
    assert scene.listener.received() == b""
    listed = levelcode(isolated_home, scene.workspace, "mcp", "list", "-v")
    assert "cannot choose folders for its server to write; ignored" in listed.stdout
    assert "cannot give its server the network in the sandbox; ignored" in listed.stdout


def test_a_sandboxed_server_filesystem_still_serves_the_workspace(isolated_home: Path, scene: Scene) -> None:
    (scene.workspace / "notes.txt").write_text("hello from the workspace\n")
    entry = {"command": node_server("mcp-server-filesystem"), "args": ["${workspaceFolder}"]}
    repository_server(scene, isolated_home, entry, "own")
    listed = call(isolated_home, scene, "repo", "list_directory", {"path": str(scene.workspace)})
    assert listed.returncode == 0, listed.stderr
    assert "[FILE] notes.txt" in listed.stdout
    read = call(isolated_home, scene, "repo", "read_text_file", {"path": str(scene.workspace / "notes.txt")})
    assert read.stdout == "hello from the workspace\n\n", read.stderr  # the file, then print's newline
    written = call(
        isolated_home, scene, "repo", "write_file", {"path": str(scene.workspace / "new.txt"), "content": "x"}
    )
    assert written.returncode == 1
    assert "read-only file system" in written.stdout.lower()
    assert not (scene.workspace / "new.txt").exists()


# --- where no sandbox can be set up --------------------------------------------------------------


NO_BWRAP = {"PATH": "/nonexistent"}  # the CLI and the server are named by absolute path


def test_without_a_sandbox_an_approved_sandboxed_server_does_not_start(
    isolated_home: Path, scene: Scene
) -> None:
    repository_server(scene, isolated_home, probe_entry(), "own")
    marker = scene.outside / "marker"
    done = call(isolated_home, scene, "repo", "try_write", {"path": str(marker)}, **NO_BWRAP)
    assert done.returncode == 1
    assert not marker.exists()
    assert (
        "MCP server 'repo' failed: it must run in the sandbox (you approved it sandboxed), but no "
        "sandbox can be set up here: bwrap was not found on PATH" in done.stderr
    )


def test_without_a_sandbox_your_confined_server_does_not_start_headless_run(
    isolated_home: Path, scene: Scene
) -> None:
    write_settings(isolated_home, {"mcpServers": {"boxed": probe_entry(sandbox=True)}})
    done = levelcode(isolated_home, scene.workspace, "mcp", "list", "--json", **NO_BWRAP)
    server = json.loads(done.stdout)["servers"][0]
    assert server["phase"] == "failed"
    assert "it must run in the sandbox (its entry asks for it), but no sandbox" in server["state"]
    assert server["sandbox"]["confined"] is True


def test_a_headless_run_without_a_sandbox_says_why_the_server_did_not_start(
    isolated_home: Path, scene: Scene
) -> None:
    pid_file = scene.outside / "pids"  # the fault server writes its pid here the moment it starts
    repository_server(scene, isolated_home, probe_entry(env={"FAULT_PID_FILE": str(pid_file)}), "own")
    with OPENAI.fake([Reply(text="done")]) as server:
        command = [
            str(LEVELCODE),
            "run",
            "-C",
            str(scene.workspace),
            *provider_flags("openai", server.base_url, OPENAI.model),
            "--json",
            "go",
        ]
        env = provider_env(isolated_home, "openai", **NO_BWRAP)
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    notices = [e["text"] for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "notice"]
    assert (
        "MCP server 'repo' failed: it must run in the sandbox (you approved it sandboxed), but no sandbox "
        "can be set up here: bwrap was not found on PATH; install bubblewrap (e.g. `apt-get install "
        "bubblewrap`); not started"
    ) in notices
    assert not pid_file.exists()


def test_mcp_get_and_list_say_how_each_server_runs(isolated_home: Path, scene: Scene) -> None:
    boxed = probe_entry(sandbox={"write": ["~/notes"], "network": True})
    write_settings(isolated_home, {"mcpServers": {"boxed": boxed, "free": probe_entry()}})
    repository_server(scene, isolated_home, probe_entry(), "workspace")
    got = levelcode(isolated_home, scene.workspace, "mcp", "get", "boxed")
    assert (
        "  sandbox: sandboxed (its entry asks for it): writes its own folder, ~/notes · network on"
        in got.stdout
    )
    info = json.loads(levelcode(isolated_home, scene.workspace, "mcp", "get", "repo", "--json").stdout)
    assert info["sandbox"] == {
        "confined": True,
        "text": "sandboxed (as you approved it): writes its own folder, the workspace · network off",
        "write": [],
        "workspace": True,
        "network": False,
        "by": "approval",
        "hosts": [],
        "registry": None,
    }
    listed = json.loads(levelcode(isolated_home, scene.workspace, "mcp", "list", "--json").stdout)
    confined = {server["name"]: server["sandbox"]["confined"] for server in listed["servers"]}
    assert confined == {"boxed": True, "free": False, "repo": True}
