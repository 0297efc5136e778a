"""Gate G1 for remote servers: a repository can point the agent at a server that would receive the
workspace's data, so a workspace-tier HTTP server needs approval like a command does.

Load-bearing direction: headless and unapproved (or approved and then changed), the listener on
127.0.0.1 receives no connection at all — not a request, not a TCP handshake — from `levelcode
run`, `mcp list` or `mcp call`. The positive control: once approved, the same entry connects."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags
from tests.support.http_servers import running, sdk_server


@contextmanager
def silent_listener() -> Iterator[tuple[str, socket.socket]]:
    """A socket that listens but never answers: any connection attempt waits in its backlog."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", listener


def contacted(listener: socket.socket) -> bool:
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def repo_server(workspace: Path, url: str, headers: dict[str, str] | None = None) -> None:
    entry: dict[str, object] = {"url": url, "headers": headers or {"Authorization": "Bearer ${REPO_TOKEN}"}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"remote": entry}}))


def cli(home: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEVELCODE), "-C", str(workspace), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, REPO_TOKEN="t"),
        cwd=workspace,
        timeout=60,
        check=False,
    )


def approve(home: Path, workspace: Path) -> None:
    spec = parse_workspace_file(json.loads((workspace / ".mcp.json").read_text()), file="x").servers[0]
    TrustStore(home / "state" / "trust.json").approve(workspace, spec, launch_text(spec))


def test_an_unapproved_repository_server_is_never_contacted(isolated_home: Path, tmp_path: Path) -> None:
    with silent_listener() as (url, listener):
        repo_server(tmp_path, url)
        listed = cli(isolated_home, tmp_path, "mcp", "list", "-v")
        called = cli(isolated_home, tmp_path, "mcp", "call", "remote", "echo")
        with OPENAI.fake([Reply(text="done")]) as provider:
            ran = subprocess.run(
                [
                    LEVELCODE,
                    "run",
                    "-C",
                    tmp_path,
                    *provider_flags("openai", provider.base_url, OPENAI.model),
                    "--json",
                    "hi",
                ],
                capture_output=True,
                text=True,
                env=provider_env(isolated_home, "openai", REPO_TOKEN="t"),
                timeout=120,
                check=False,
            )
        assert not contacted(listener)
    assert f"remote · needs approval · workspace · {tmp_path / '.mcp.json'}" in listed.stdout
    assert f"  {url}" in listed.stdout
    assert called.returncode == 1
    assert "is not running (needs approval)" in called.stdout
    assert ran.returncode == 0, ran.stderr
    assert "MCP server 'remote'" in ran.stdout
    assert "levelcode mcp trust remote" in ran.stdout


def test_an_approved_server_whose_headers_change_is_not_contacted(
    isolated_home: Path, tmp_path: Path
) -> None:
    with silent_listener() as (url, listener):
        repo_server(tmp_path, url)
        approve(isolated_home, tmp_path)
        repo_server(tmp_path, url, {"Authorization": "Bearer ${OTHER_TOKEN}"})
        listed = cli(isolated_home, tmp_path, "mcp", "list", "-v")
        assert not contacted(listener)
    assert "remote · command changed — needs approval" in listed.stdout


def test_once_approved_the_same_entry_connects(isolated_home: Path, tmp_path: Path) -> None:
    with running(sdk_server()) as server:
        repo_server(tmp_path, server.url)
        before = cli(isolated_home, tmp_path, "mcp", "call", "remote", "echo", '{"message": "a"}')
        approve(isolated_home, tmp_path)
        after = cli(isolated_home, tmp_path, "mcp", "call", "remote", "echo", '{"message": "b"}')
    assert before.returncode == 1
    assert (after.returncode, after.stdout) == (0, "Echo: b\n"), after.stderr
