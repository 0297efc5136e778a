"""The reference MCP servers (filesystem, everything, memory, time, git), pinned by package-lock.json
and uv.lock, through our own stdio client, configured as the user's own (user tier):
each connects, lists its tools and answers a call; afterwards its process group is gone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection, connect
from levelcode.mcp.protocol.handshake import Era
from tests.support.processes import group_members, survivors
from tests.support.servers import USER, node_server, npx_installed, venv_bin


async def _connect(spec: StdioServerSpec, workspace: Path, hint: Era | None = None) -> McpConnection:
    options = ConnectOptions(workspace=workspace, startup_timeout=60, log_dir=workspace / "logs")
    return await connect(spec, options, hint=hint)


async def _close_and_check(connection: McpConnection) -> None:
    pid = connection.pid
    assert pid is not None
    members = group_members(pid)
    await connection.close()
    assert survivors([pid, *members], within=5) == []


@pytest.mark.parametrize("hint", [None, "legacy"])
async def test_server_everything(tmp_path: Path, hint: Era | None) -> None:
    spec = StdioServerSpec("everything", node_server("mcp-server-everything"), USER)
    connection = await _connect(spec, tmp_path, hint)
    assert connection.info.era == "legacy"
    names = {tool["name"] for tool in connection.tools}
    assert {"echo", "get-sum", "get-tiny-image"} <= names
    assert (await connection.call_tool("echo", {"message": "hello"})).text == "Echo: hello"
    image = await connection.call_tool("get-tiny-image", {})
    assert "[image 1: image/png, " in image.text
    assert [m.mime_type for m in image.media] == ["image/png"]
    assert "iVBOR" not in image.text
    structured = await connection.call_tool("get-structured-content", {"location": "New York"})
    assert "temperature" in structured.text
    bad = await connection.call_tool("get-sum", {"a": "x"})
    assert bad.is_error
    assert bad.text.startswith("ERROR: ")
    await _close_and_check(connection)


async def test_server_everything_through_npx(tmp_path: Path) -> None:
    command, *args = npx_installed("mcp-server-everything")
    spec = StdioServerSpec("everything", command, USER, args=tuple(args))
    connection = await _connect(spec, tmp_path, "legacy")
    assert len(group_members(connection.pid or 0)) >= 2  # npm exec, sh, node
    assert (await connection.call_tool("get-sum", {"a": 2, "b": 3})).text == "The sum of 2 and 3 is 5."
    await _close_and_check(connection)


async def test_server_filesystem(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "note.txt").write_text("hello from the filesystem server\n")
    spec = StdioServerSpec("fs", node_server("mcp-server-filesystem"), USER, args=(str(root),))
    connection = await _connect(spec, tmp_path)
    assert {"read_text_file", "write_file", "list_directory"} <= {tool["name"] for tool in connection.tools}
    read = await connection.call_tool("read_text_file", {"path": str(root / "note.txt")})
    assert read.text == "hello from the filesystem server\n"
    outside = await connection.call_tool("read_text_file", {"path": "/etc/hostname"})
    assert outside.is_error
    assert "outside allowed directories" in outside.text
    await _close_and_check(connection)


async def test_server_memory(tmp_path: Path) -> None:
    memory_file = tmp_path / "memory.jsonl"
    spec = StdioServerSpec(
        "memory", node_server("mcp-server-memory"), USER, env=(("MEMORY_FILE_PATH", str(memory_file)),)
    )
    connection = await _connect(spec, tmp_path)
    assert {"create_entities", "read_graph"} <= {tool["name"] for tool in connection.tools}
    entity = {"name": "Ada", "entityType": "person", "observations": ["writes programs"]}
    created = await connection.call_tool("create_entities", {"entities": [entity]})
    assert not created.is_error
    graph = await connection.call_tool("read_graph", {})
    assert "writes programs" in graph.text
    assert "Ada" in memory_file.read_text()
    await _close_and_check(connection)


@pytest.mark.parametrize("hint", [None, "modern", "legacy"])
async def test_server_time(tmp_path: Path, hint: Era | None) -> None:
    spec = StdioServerSpec("time", venv_bin("mcp-server-time"), USER, args=("--local-timezone", "UTC"))
    connection = await _connect(spec, tmp_path, hint)
    assert connection.info.era == ("modern" if hint == "modern" else "legacy")  # dual-era: initialize first
    assert {tool["name"] for tool in connection.tools} == {"get_current_time", "convert_time"}
    now = await connection.call_tool("get_current_time", {"timezone": "UTC"})
    assert json.loads(now.text)["timezone"] == "UTC"
    bad = await connection.call_tool("get_current_time", {"timezone": "Nowhere/Special"})
    assert bad.is_error
    await _close_and_check(connection)


async def test_server_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    (repo / "new.txt").write_text("hello\n")
    spec = StdioServerSpec(
        "git", venv_bin("python3"), USER, args=("-m", "mcp_server_git", "--repository", str(repo))
    )
    connection = await _connect(spec, tmp_path)
    assert {"git_status", "git_log", "git_diff"} <= {tool["name"] for tool in connection.tools}
    status = await connection.call_tool("git_status", {"repo_path": str(repo)})
    assert "new.txt" in status.text
    await _close_and_check(connection)
