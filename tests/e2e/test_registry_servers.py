"""Servers added from an MCP Registry go through the same gates as hand-written ones, and an
organisation's registry decides which may run. The real CLI, a registry on 127.0.0.1
(tests/support/mcp_registry.py), real remote servers (the official SDK's, with OAuth), and the
organisation's policy file (tests/support/org_policy.py).

Load-bearing direction (the attacks): under `mcpRegistryOnly` a server not added from the
organisation's registry never starts — a hand-written entry, one whose entry names another
registry — and no `--registry` or setting of the user's asks another registry; a registry
remote added for the repository (`-s project`) is not contacted headless until approved, like
any repository server. The second corpus: a registry remote behind OAuth says "needs login" and
works once signed in; a server from the organisation's registry starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_remote_gate import contacted, silent_listener
from tests.fakes.oauth_server import authorization_server
from tests.support.browser import login_elsewhere
from tests.support.cli import run_cli, write_settings
from tests.support.http_servers import free_port, running, sdk_server
from tests.support.mcp_registry import LocalRegistry, local_registry
from tests.support.org_policy import hostile_entry, policy_file, under_policy


@pytest.fixture
def registry() -> Iterator[LocalRegistry]:
    with local_registry() as served:
        yield served


def cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, home, cwd=cwd or home, timeout=120)


def remote_server(name: str, url: str, **remote: Any) -> dict[str, Any]:
    return {
        "name": name,
        "version": "1.0.0",
        "description": "a remote",
        "remotes": [{"type": "streamable-http", "url": url, **remote}],
    }


def test_a_registry_remote_behind_oauth_needs_a_login_and_works_after_it(
    isolated_home: Path, registry: LocalRegistry
) -> None:
    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        server = sdk_server("--oauth", auth.issuer)
        server.port, server.argv[2] = port, str(port)
        with running(server):
            registry.add(remote_server("com.example/secured", server.url))
            write_settings(isolated_home, {"mcpRegistry": registry.url})
            added = cli(isolated_home, "mcp", "add", "com.example/secured", "--from-registry")
            assert added.returncode == 0, added.stderr
            before = cli(isolated_home, "mcp", "list")
            assert before.returncode == 3, before.stdout + before.stderr
            assert "sign in with: levelcode mcp login secured" in before.stdout
            code, said = login_elsewhere(isolated_home, "secured", paste=False)
            assert code == 0, said
            call = cli(isolated_home, "mcp", "call", "secured", "echo", '{"message": "from the registry"}')
            assert (call.returncode, call.stdout) == (0, "Echo: from the registry\n"), call.stderr


def test_a_registry_remote_for_the_repository_waits_for_approval(
    isolated_home: Path, registry: LocalRegistry, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with silent_listener() as (url, listener):
        registry.add(remote_server("com.example/listening", url))
        added = cli(
            isolated_home,
            "-C",
            str(workspace),
            "mcp",
            "add",
            "-s",
            "project",
            "com.example/listening",
            "--from-registry",
            "--registry",
            registry.url,
        )
        assert added.returncode == 0, added.stderr
        assert json.loads((workspace / ".mcp.json").read_text())["mcpServers"]["listening"]["url"] == url
        listed = cli(isolated_home, "-C", str(workspace), "mcp", "list")
        assert "listening" in listed.stdout
        assert not contacted(listener)  # headless and unapproved: not even a TCP handshake
        card = cli(isolated_home, "-C", str(workspace), "mcp", "trust", "listening")
        assert "registry: its entry says com.example/listening 1.0.0 from" in card.stdout + card.stderr
        assert not contacted(listener)


# --- the organisation's registry -----------------------------------------------------------------


def test_under_registry_only_a_server_from_elsewhere_never_starts(
    isolated_home: Path, registry: LocalRegistry, tmp_path: Path
) -> None:
    """The attack: a hand-written server, and one whose entry names another registry, run as soon as
    anything lists the servers — unless the policy's registry-only rule holds them back."""
    policy = policy_file(tmp_path, {"mcpRegistry": registry.url, "mcpRegistryOnly": True})
    hand_written, elsewhere = tmp_path / "hand-written-ran", tmp_path / "elsewhere-ran"
    other = {"url": "https://registry.modelcontextprotocol.io", "name": "io.github.a/b", "version": "1.0.0"}
    write_settings(
        isolated_home,
        {
            "mcpServers": {
                "hand": hostile_entry(hand_written),
                "elsewhere": {**hostile_entry(elsewhere), "registry": other},
            }
        },
    )
    listed = under_policy(policy, isolated_home, tmp_path, "mcp", "list")
    assert not hand_written.exists()
    assert not elsewhere.exists()
    assert "only servers added from" in listed.stdout + listed.stderr
    assert "it was added from https://registry.modelcontextprotocol.io" in listed.stdout + listed.stderr


def test_the_organisations_registry_is_the_one_asked_and_its_servers_run(
    isolated_home: Path, registry: LocalRegistry, tmp_path: Path
) -> None:
    local = {
        "name": "io.github.levelcode/python-time",
        "version": "1.0.0",
        "description": "local test server",
        "packages": [{"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.10.19"}],
    }
    registry.add(local)
    policy = policy_file(tmp_path, {"mcpRegistry": registry.url, "mcpRegistryOnly": True})
    write_settings(isolated_home, {"mcpRegistry": "https://registry.modelcontextprotocol.io"})
    refused = under_policy(
        policy,
        isolated_home,
        tmp_path,
        "mcp",
        "search",
        "x",
        "--registry",
        "https://registry.modelcontextprotocol.io",
    )
    assert refused.returncode == 2
    assert "--registry refused by your organisation's policy" in refused.stderr
    searched = under_policy(policy, isolated_home, tmp_path, "mcp", "search", "time")
    assert "io.github.levelcode/python-time" in searched.stdout, searched.stderr
    added = under_policy(
        policy, isolated_home, tmp_path, "mcp", "add", "io.github.levelcode/python-time", "--from-registry"
    )
    assert added.returncode == 0, added.stderr
    assert "it will not start" not in added.stdout
    shown = under_policy(policy, isolated_home, tmp_path, "mcp", "get", "python-time", "--no-start")
    assert "blocked" not in shown.stdout
    hand = under_policy(policy, isolated_home, tmp_path, "mcp", "add", "hand", "--", sys.executable, "-V")
    assert "note: it will not start: it is blocked by your organisation's policy" in hand.stdout
