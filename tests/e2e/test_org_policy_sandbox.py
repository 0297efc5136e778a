"""`"mcpSandbox"` in the organisation's policy, end to end: a real `levelcode` under the policy file,
servers that try to write outside their folder. Load-bearing direction: under the policy no server
it covers writes outside — the user's own server without a `sandbox` key, a repository's server the
user approved unconfined — and the launch card offers no unconfined answer, saying the
organisation decided. The positive controls: the same servers without the policy do write."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.providers.support import OPENAI
from tests.support.cli import provider_env, provider_flags, write_settings
from tests.support.managed_levelcode import policy_command
from tests.support.org_policy import (
    approve_repository_server,
    policy_file,
    repository_servers,
    under_policy,
    words,
)
from tests.support.sandbox import host_folder
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal, shows_wrapped

pytestmark = pytest.mark.sandbox

PROBE = {"command": sys.executable, "args": [str(FAULT_SERVER), "--probes"]}
ABSENT = "absent-policy.json"


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


def try_write(policy: Path, home: Path, workspace: Path, server: str, target: Path) -> Any:
    arguments = json.dumps({"path": str(target)})
    return under_policy(policy, home, workspace, "mcp", "call", server, "try_write", arguments)


def test_the_users_own_server_runs_sandboxed_under_the_policy(
    isolated_home: Path, tmp_path: Path, outside: Path
) -> None:
    write_settings(isolated_home, {"mcpServers": {"probe": PROBE}})
    policy = policy_file(tmp_path, {"mcpSandbox": "all"})
    target = outside / "marker"
    done = try_write(policy, isolated_home, tmp_path, "probe", target)
    assert done.stdout.startswith("refused: [Errno 30] Read-only file system"), words(done)
    assert not target.exists()
    control = try_write(tmp_path / ABSENT, isolated_home, tmp_path, "probe", target)
    assert control.stdout == f"wrote {target}\n", words(control)
    listed = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert (
        "sandbox: sandboxed (your organisation's policy requires it): writes its own folder" in listed.stdout
    )
    assert f"policy: the sandbox is required by your organisation's policy ({policy})" in listed.stdout


def test_an_unconfined_approval_runs_sandboxed_under_the_policy(
    isolated_home: Path, tmp_path: Path, outside: Path
) -> None:
    repository_servers(tmp_path, {"probe": PROBE})
    approve_repository_server(isolated_home, tmp_path, "probe", PROBE)  # approved unconfined
    policy = policy_file(tmp_path, {"mcpSandbox": "repository"})
    target = outside / "marker"
    done = try_write(policy, isolated_home, tmp_path, "probe", target)
    assert done.stdout.startswith("refused: [Errno 30] Read-only file system"), words(done)
    assert not target.exists()
    control = try_write(tmp_path / ABSENT, isolated_home, tmp_path, "probe", target)
    assert control.stdout == f"wrote {target}\n", words(control)


def test_the_card_offers_only_sandboxed_answers_and_says_who_decided(
    terminal: Terminal, isolated_home: Path, tmp_path: Path, outside: Path
) -> None:
    repository_servers(tmp_path, {"probe": PROBE})
    policy = policy_file(tmp_path, {"mcpSandbox": "repository"})
    with OPENAI.fake([]) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        argv = [*policy_command(policy), *provider_flags("openai", server.base_url, OPENAI.model)]
        terminal.start(argv, env, str(tmp_path))
        screen = terminal.wait_for_keys()
        assert "[s] approve, sandboxed" in screen
        assert "approve, unconfined" not in screen
        said = f"the sandbox is required by your organisation's policy ({policy}), so it is not offered"
        assert shows_wrapped(screen, said)
        terminal.answer("s", confirm=True)
        terminal.wait_for("mcp · probe (")
        terminal.wait_for_prompt()
        terminal.type("/mcp")
        terminal.send("Enter")
        terminal.wait_for("policy: the sandbox is required by your organisation's policy")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    target = outside / "marker"
    done = try_write(policy, isolated_home, tmp_path, "probe", target)
    assert done.stdout.startswith("refused: [Errno 30] Read-only file system"), words(done)
    assert not target.exists()
