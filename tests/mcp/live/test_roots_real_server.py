"""The reference filesystem server and LevelCode's roots, started many times over: what
docs/mcp-servers.md says happens is what happens on every start. Load-bearing direction: a
server whose entry turns roots off never gets them (it keeps the folders of its arguments on
every start), and `${workspaceFolder}` in its arguments gives the workspace from its first call
on, roots on or not. The second corpus: with roots on, the folders of its arguments are replaced
by the workspace and the added folders once the server has applied them, and a folder added
during the session (`/add-dir`) joins them the same way.

What is not asserted, because no client can make it so: which folders a call made right after the
start sees when the arguments name other folders. The server asks for the roots once LevelCode's
handshake is done, then checks each folder on disk and only then switches, while it answers
calls; no message says it has switched (measured: 13 ms idle, up to 0.4 s with 20 starting)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.config.tiers import parse_user_settings
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.client_features import UserAnswers, WorkspaceRoots, features_for, workspace_roots
from levelcode.mcp.live.connection import McpConnection, connect
from tests.support.servers import node_server

STARTS = 20
AT_ONCE = 4  # two shared cores: more at once only makes each start slower
# The server's log lines once it has settled its folders: switched to the roots, or kept its own.
APPLIED = "Updated allowed directories from MCP roots"
KEPT = "Client does not support MCP Roots"
SETTLED_WITHIN = 10.0

Check = Callable[[McpConnection, WorkspaceRoots], Awaitable[str]]


def _filesystem(entry: Mapping[str, object]) -> StdioServerSpec:
    server = {"command": node_server("mcp-server-filesystem"), **entry}
    spec = parse_user_settings({"mcpServers": {"fs": server}}, file="/test/settings.json").servers[0]
    assert isinstance(spec, StdioServerSpec)
    return spec


async def _start(spec: StdioServerSpec, roots: WorkspaceRoots) -> McpConnection:
    options = ConnectOptions(
        workspace=roots.folders[0],
        startup_timeout=60,
        features_for=lambda entry, tell: features_for(entry, roots, UserAnswers(), tell),
    )
    return await connect(spec, options)


async def _allowed(connection: McpConnection) -> list[str]:
    outcome = await connection.call_tool("list_allowed_directories", {})
    assert not outcome.is_error, outcome.text
    head, *folders = outcome.text.splitlines()
    assert head == "Allowed directories:"
    return folders


async def _every_start(
    tmp_path: Path, entry: Mapping[str, object], check: Check, *added: Path, starts: int = STARTS
) -> list[str]:
    """Start the server `starts` times, each in a workspace of its own, and return what `check` saw."""
    limit = asyncio.Semaphore(AT_ONCE)

    async def one(number: int) -> str:
        workspace = tmp_path / f"workspace-{number}"
        workspace.mkdir()
        roots = workspace_roots(workspace, added)
        async with limit:
            connection = await _start(_filesystem(entry), roots)
            try:
                return await check(connection, roots)
            finally:
                await connection.close()

    return list(await asyncio.gather(*(one(n) for n in range(starts))))


async def _settled(connection: McpConnection, times: int = 1) -> None:
    """Wait (bounded) for the server's own word that its folders are settled, `times` times over:
    the only sign there is."""
    deadline = time.monotonic() + SETTLED_WITHIN
    while sum(APPLIED in line or KEPT in line for line in connection.session.diagnostics()) < times:
        assert time.monotonic() < deadline, f"the server never settled: {connection.session.diagnostics()}"
        await asyncio.sleep(0.01)  # polling its log, with a deadline: it sends no message for this


def _verdict(allowed: list[str], expected: list[Path]) -> str:
    return "ok" if allowed == [str(folder) for folder in expected] else f"{allowed} not {expected}"


async def test_the_workspace_folder_in_its_arguments_is_allowed_from_the_first_call(tmp_path: Path) -> None:
    async def first_call(connection: McpConnection, roots: WorkspaceRoots) -> str:
        return _verdict(await _allowed(connection), roots.folders)

    seen = await _every_start(tmp_path, {"args": ["${workspaceFolder}"]}, first_call)
    assert seen == ["ok"] * STARTS


async def test_roots_turned_off_keep_the_folders_of_its_arguments(tmp_path: Path) -> None:
    listed = tmp_path / "listed"
    listed.mkdir()

    async def settled(connection: McpConnection, _roots: WorkspaceRoots) -> str:
        await _settled(connection)
        return _verdict(await _allowed(connection), [listed])

    seen = await _every_start(tmp_path, {"args": [str(listed)], "roots": False}, settled, starts=5)
    assert seen == ["ok"] * 5


async def test_roots_replace_the_folders_of_its_arguments_once_applied(tmp_path: Path) -> None:
    listed, added, later = tmp_path / "listed", tmp_path / "added", tmp_path / "later"
    for folder in (listed, added, later):
        folder.mkdir()

    async def applied(connection: McpConnection, roots: WorkspaceRoots) -> str:
        await _settled(connection)
        first = _verdict(await _allowed(connection), roots.folders)
        roots.folders.append(later)  # what /add-dir does, and then tells the running servers
        connection.roots_changed()
        await _settled(connection, times=2)
        return f"{first}, {_verdict(await _allowed(connection), roots.folders)}"

    seen = await _every_start(tmp_path, {"args": [str(listed)]}, applied, added)
    assert seen == ["ok, ok"] * STARTS
