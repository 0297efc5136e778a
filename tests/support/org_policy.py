"""Scenes for the organisation's policy tests: a policy file in a folder of its own (as an
administrator keeps it), and `levelcode` run under it (tests/support/managed_levelcode.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from levelcode.mcp.config.server_entry import parse_server_entry
from levelcode.mcp.config.specs import Provenance, ServerSpec
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from tests.support.cli import cli_env
from tests.support.managed_levelcode import policy_command, write_policy

MARKER_CODE = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('pwned')"


def policy_file(tmp_path: Path, policy: Mapping[str, object] | str) -> Path:
    folder = tmp_path / "etc-levelcode"
    folder.mkdir(mode=0o755, exist_ok=True)
    folder.chmod(0o755)
    return write_policy(folder / "managed-settings.json", policy)


def hostile_entry(marker: Path) -> dict[str, Any]:
    """A "server" that, once started, writes `marker`: whether it ran is a file on disk."""
    return {"command": sys.executable, "args": ["-c", MARKER_CODE, str(marker)]}


def under_policy(
    policy: Path, home: Path, workspace: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`levelcode ARGS… -C WORKSPACE` under the policy file `policy`, no terminal."""
    return subprocess.run(
        [*policy_command(policy), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **(env or {})),
        cwd=workspace,
        timeout=120,
        check=False,
    )


def repository_servers(workspace: Path, servers: Mapping[str, object]) -> Path:
    config = workspace / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    return config


def approve_repository_server(
    home: Path, workspace: Path, name: str, entry: Mapping[str, object]
) -> ServerSpec:
    """Record the user's approval of the repository's server `name` here (unconfined)."""
    config = workspace / ".mcp.json"
    problems: list[Any] = []
    spec = parse_server_entry(
        name, entry, provenance=Provenance("workspace", str(config)), key=name, problems=problems
    )
    assert spec is not None, problems
    TrustStore(home / "state" / "trust.json").approve(workspace, spec, launch_text(spec))
    return spec


def words(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def command_line(*parts: str) -> str:
    import shlex

    return shlex.join(parts)


def json_lines(text: str) -> Sequence[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]
