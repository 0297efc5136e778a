"""The organisation's policy decides which servers may run, end to end: a real `levelcode` under a
policy file (tests/support/managed_levelcode.py), real processes. Load-bearing direction: a server
the policy blocks never runs — its marker file never appears — whoever declared it (the user, a
repository, under another name, after the user approved it) and whichever command asks
(`mcp list`, `mcp get`, `mcp trust`, `run`); each says the organisation decided, naming the
file. The positive controls show the same scene does run the server with no policy."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.mcp.config.server_entry import parse_server_entry
from levelcode.mcp.config.specs import Provenance
from levelcode.mcp.launch.trust import launch_fingerprint
from tests.support.cli import write_settings
from tests.support.org_policy import (
    approve_repository_server,
    hostile_entry,
    policy_file,
    repository_servers,
    under_policy,
    words,
)
from tests.support.servers import node_server

BLOCKED = "blocked by your organisation's policy ({file})"


def test_a_server_denied_by_name_never_starts(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"evil": hostile_entry(marker)}})
    policy = policy_file(tmp_path, {"deniedMcpServers": [{"name": "evil"}], "contact": "ask #platform"})
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert not marker.exists(), words(done)
    said = BLOCKED.format(file=policy) + ': it matches deniedMcpServers[0] (name "evil") — ask #platform'
    assert f"evil · {said}" in done.stdout
    assert done.returncode == 0, words(done)


def test_no_policy_file_lets_the_same_server_run(isolated_home: Path, tmp_path: Path) -> None:
    """The positive control: the scene above runs the server when the policy file is not there."""
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"evil": hostile_entry(marker)}})
    done = under_policy(tmp_path / "absent.json", isolated_home, tmp_path, "mcp", "list", "-v")
    assert marker.exists(), words(done)


def test_a_repository_renaming_a_denied_command_is_still_denied(isolated_home: Path, tmp_path: Path) -> None:
    """The policy denies a command; a repository declares it under a name of its own, with the
    program's full path, and the user approved it: it still never starts, and `mcp trust` cannot
    approve it."""
    marker = tmp_path / "marker"
    entry = hostile_entry(marker) | {"command": sys.executable}
    repository_servers(tmp_path, {"helpful-tool": entry})
    approve_repository_server(isolated_home, tmp_path, "helpful-tool", entry)
    program = Path(sys.executable).name
    policy = policy_file(tmp_path, {"deniedMcpServers": [{"command": f"{program} -c *pwned*"}]})
    listed = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    trusted = under_policy(policy, isolated_home, tmp_path, "mcp", "trust", "helpful-tool")
    got = under_policy(policy, isolated_home, tmp_path, "mcp", "get", "helpful-tool")
    assert not marker.exists(), words(listed) + words(trusted) + words(got)
    said = BLOCKED.format(file=policy) + f': it matches deniedMcpServers[0] (command "{program} -c *pwned*")'
    assert f"helpful-tool · {said}" in listed.stdout
    assert trusted.returncode == 1
    assert f"'helpful-tool' cannot be approved: it is {said}" in trusted.stderr
    assert f"state:   {said}" in got.stdout


def test_an_approved_repository_server_runs_without_a_policy(isolated_home: Path, tmp_path: Path) -> None:
    """The positive control of the renaming attack: approved, and no policy, it runs."""
    marker = tmp_path / "marker"
    entry = hostile_entry(marker)
    repository_servers(tmp_path, {"helpful-tool": entry})
    approve_repository_server(isolated_home, tmp_path, "helpful-tool", entry)
    done = under_policy(tmp_path / "absent.json", isolated_home, tmp_path, "mcp", "list", "-v")
    assert marker.exists(), words(done)


@pytest.mark.parametrize("written", [str.lower, str.upper], ids=["as printed", "in upper case"])
def test_a_fingerprint_denies_the_same_launch_under_any_name(
    isolated_home: Path, tmp_path: Path, written: Callable[[str], str]
) -> None:
    marker = tmp_path / "marker"
    entry = hostile_entry(marker)
    spec = parse_server_entry("x", entry, provenance=Provenance("user", "f"), key="x", problems=[])
    assert spec is not None
    repository_servers(tmp_path, {"renamed": entry})
    approve_repository_server(isolated_home, tmp_path, "renamed", entry)
    write_settings(isolated_home, {"mcpServers": {"mine": entry}})
    policy = policy_file(tmp_path, {"deniedMcpServers": [{"fingerprint": written(launch_fingerprint(spec))}]})
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert not marker.exists(), words(done)
    assert done.stdout.count("it matches deniedMcpServers[0] (fingerprint") == 2


def test_an_allow_list_lets_through_only_what_it_names(isolated_home: Path, tmp_path: Path) -> None:
    """Allowed by fingerprint: the memory server runs; a server the list does not name, and one
    that takes the allowed server's name with another command, do not."""
    memory = {"command": node_server("mcp-server-memory")}
    spec = parse_server_entry("memory", memory, provenance=Provenance("user", "f"), key="m", problems=[])
    assert spec is not None
    marker, taken = tmp_path / "marker", tmp_path / "taken"
    write_settings(isolated_home, {"mcpServers": {"memory": memory, "other": hostile_entry(marker)}})
    policy = policy_file(
        tmp_path, {"allowedMcpServers": [{"name": "memory", "fingerprint": launch_fingerprint(spec)}]}
    )
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    write_settings(isolated_home, {"mcpServers": {"memory": hostile_entry(taken)}})
    swapped = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert not marker.exists(), words(done)
    assert not taken.exists(), words(swapped)
    assert "memory · running" in done.stdout
    assert (
        "other · " + BLOCKED.format(file=policy) + ": it matches no entry of allowedMcpServers" in done.stdout
    )
    assert "memory · " + BLOCKED.format(file=policy) in swapped.stdout


def test_repository_servers_turned_off_hold_even_an_approved_one(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    entry = hostile_entry(marker)
    repository_servers(tmp_path, {"repo": entry})
    approve_repository_server(isolated_home, tmp_path, "repo", entry)
    policy = policy_file(tmp_path, {"repositoryMcpServers": False})
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "--json")
    assert not marker.exists(), words(done)
    (server,) = json.loads(done.stdout)["servers"]
    assert server["phase"] == "blocked"
    assert server["organisation"]["blocked"] == (
        BLOCKED.format(file=policy)
        + ": servers from a repository's files are turned off (repositoryMcpServers: false)"
    )


def test_a_server_spawned_early_last_time_is_not_spawned_once_the_policy_denies_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The same command line spawns what it spawned last time before reading anything
    (mcp/stdio/remembered.py): a policy file that appeared since must end that."""
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"evil": hostile_entry(marker)}})
    policy = tmp_path / "etc-levelcode" / "managed-settings.json"
    first = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert marker.exists(), words(first)
    marker.unlink()
    policy_file(tmp_path, {"deniedMcpServers": [{"name": "evil"}]})
    again = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert not marker.exists(), words(again)


def test_adding_a_server_the_policy_blocks_says_it_will_not_start(
    isolated_home: Path, tmp_path: Path
) -> None:
    policy = policy_file(tmp_path, {"deniedMcpServers": [{"command": "npx -y @evil/*"}]})
    done = under_policy(
        policy, isolated_home, tmp_path, "mcp", "add", "helper", "--", "npx", "-y", "@evil/server"
    )
    assert done.returncode == 0, words(done)
    assert (
        "note: it will not start: it is "
        + BLOCKED.format(file=policy)
        + ': it matches deniedMcpServers[0] (command "npx -y @evil/*")'
    ) in done.stdout


def test_mcp_call_on_a_blocked_server_starts_nothing_and_says_why(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"evil": hostile_entry(marker)}})
    policy = policy_file(tmp_path, {"deniedMcpServers": [{"name": "evil"}]})
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "call", "evil", "anything")
    assert not marker.exists(), words(done)
    assert done.returncode == 1
    said = BLOCKED.format(file=policy) + ': it matches deniedMcpServers[0] (name "evil")'
    assert f"levelcode: MCP server 'evil' was not started: {said}" in done.stderr
    assert f"MCP server 'evil' is not running ({said})" in done.stdout
