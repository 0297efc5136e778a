"""End to end, offline: the reference server-everything found in an MCP Registry on 127.0.0.1,
added in one command, and started in the sandbox — `npx -y @modelcontextprotocol/server-everything@
VERSION` (the version this checkout's package-lock.json pins) installing every package through the
egress filter from an npm registry on 127.0.0.1 (tests/support/npm_lock_registry.py), with an empty
private cache, then answering a tool call.

Load-bearing direction: the entry the registry gave runs exactly the version listed, confined —
its own folder writable, the network only to the npm registry you configured — and the call's
answer comes from that server. With the sandbox taken out of the entry, `mcp get` no longer says
"sandboxed" (checked below, so the first assertion cannot pass by wording alone).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli, write_settings
from tests.support.mcp_registry import local_registry, recorded
from tests.support.npm_lock_registry import locked_version, npm_lock_registry
from tests.support.sandbox import server_log

pytestmark = pytest.mark.sandbox

EVERYTHING = "io.github.modelcontextprotocol/server-everything"
PACKAGE = "@modelcontextprotocol/server-everything"


def levelcode(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, home, cwd=home, timeout=300, env=env)


def test_server_everything_from_the_registry_connects_in_the_sandbox(isolated_home: Path) -> None:
    version = locked_version(PACKAGE)
    server_json = recorded("server-everything")
    assert server_json["version"] == version, "the recorded entry follows package-lock.json"
    with local_registry(server_json) as registry, npm_lock_registry() as npm:
        write_settings(isolated_home, {"mcpRegistry": registry.url})
        found = levelcode(isolated_home, "mcp", "search", "everything")
        assert f"add: levelcode mcp add {EVERYTHING} --from-registry" in found.stdout, found.stderr
        added = levelcode(isolated_home, "mcp", "add", EVERYTHING, "--from-registry")
        assert added.returncode == 0, added.stderr
        entry = json.loads((isolated_home / "settings.json").read_text())["mcpServers"]["server-everything"]
        assert entry["args"] == ["-y", f"{PACKAGE}@{version}"]
        assert not (isolated_home / "state" / "servers").exists()  # an empty private cache

        shown = levelcode(isolated_home, "mcp", "get", "server-everything", "--no-start")
        assert (
            "sandboxed (its entry asks for it): writes its own folder · network only to the npm registry"
            in shown.stdout
        )
        said = levelcode(
            isolated_home,
            "mcp",
            "call",
            "server-everything",
            "echo",
            '{"message": "from the registry"}',
            npm_config_registry=npm.url + "/",
        )
        assert said.stdout == "Echo: from the registry\n", (
            said.stdout + said.stderr + server_log(isolated_home, "server-everything")
        )
        assert npm.fetched(
            f"/{PACKAGE.replace('/', '%2f')}/-/server-everything-{version}.tgz"
        ) or npm.fetched(f"/{PACKAGE}/-/server-everything-{version}.tgz"), npm.requests[:5]
        assert len(npm.requests) > 100  # every package of its tree, fetched through the egress filter
        assert (isolated_home / "state" / "servers" / "server-everything" / "npm").is_dir()  # its own cache

    entry.pop("sandbox")
    write_settings(isolated_home, {"mcpServers": {"server-everything": entry}})
    unconfined = levelcode(isolated_home, "mcp", "get", "server-everything", "--no-start")
    assert "sandboxed" not in unconfined.stdout
