"""Profiles and per-workspace choices, end to end: a real `levelcode`, real servers, real git
worktrees. Load-bearing direction: a server outside the session's profile, or turned off in this
repository, never runs (its marker never appears) — in every worktree of that repository, not in
another repository — and the organisation's policy still wins over both. The positive controls
run the same server where nothing turns it off."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fakes.fake_openai import offered_tool_names
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli, write_settings
from tests.support.git_layouts import run_git
from tests.support.org_policy import hostile_entry, policy_file, under_policy, words
from tests.support.servers import node_server


def repository(path: Path) -> Path:
    path.mkdir()
    run_git(path, "init", "-q")
    (path / "README").write_text("hi\n")
    run_git(path, "add", ".")
    run_git(path, "commit", "-q", "-m", "first")
    return path


def servers(home: Path, marker: Path, **more: object) -> None:
    memory = {"command": node_server("mcp-server-memory")}
    write_settings(
        home,
        {
            "mcpServers": {"memory": memory, "probe": hostile_entry(marker)},
            "profiles": {"quiet": {"servers": ["memory"]}},
            **more,
        },
    )


def test_a_profile_starts_only_its_servers(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    servers(isolated_home, marker)
    before = run_cli(["--profile", "quiet", "mcp", "list", "-v", "-C", str(tmp_path)], isolated_home)
    after = run_cli(["mcp", "list", "-v", "--profile", "quiet", "-C", str(tmp_path)], isolated_home)
    assert not marker.exists(), words(before) + words(after)
    for done in (before, after):
        assert "memory · running" in done.stdout
        assert "probe · not in profile 'quiet', which this session uses" in done.stdout
        assert "Profile 'quiet': only its servers start" in done.stdout
    control = run_cli(["mcp", "list", "-v", "-C", str(tmp_path)], isolated_home)
    assert marker.exists(), words(control)


def test_run_offers_only_the_profiles_tools(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    servers(isolated_home, marker)
    with OPENAI.fake([Reply(text="ok")]) as server:
        command = ["run", "-C", str(tmp_path), *provider_flags("openai", server.base_url, OPENAI.model)]
        done = subprocess.run(
            [str(LEVELCODE), *command, "--profile", "quiet", "hi"],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai"),
            timeout=120,
            check=False,
        )
        offered = offered_tool_names(server.requests[0])
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "memory__read_graph" in offered


def test_an_unknown_profile_is_refused_before_anything_starts(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    servers(isolated_home, marker)
    done = run_cli(["--profile", "loud", "mcp", "list", "-v", "-C", str(tmp_path)], isolated_home)
    assert done.returncode == 2
    assert not marker.exists()
    assert (
        f"levelcode: no profile named 'loud' in {isolated_home / 'settings.json'}; profiles: quiet"
        in done.stderr
    )


def test_a_server_turned_off_here_stays_off_in_every_worktree_and_not_elsewhere(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    servers(isolated_home, marker)
    main, other = repository(tmp_path / "main"), repository(tmp_path / "other")
    turned = run_cli(["mcp", "disable", "probe", "--here", "-C", str(main)], isolated_home)
    assert turned.returncode == 0, words(turned)
    assert "Disabled 'probe' here: it will not start in every worktree of the repository" in turned.stdout
    run_git(main, "worktree", "add", "-q", str(tmp_path / "feature"))
    for folder in (main, tmp_path / "feature"):
        done = run_cli(["mcp", "list", "-v", "-C", str(folder)], isolated_home)
        assert not marker.exists(), words(done)
        assert (
            "probe · disabled in this workspace (enable with: levelcode mcp enable probe --here)"
            in done.stdout
        )
    elsewhere = run_cli(["mcp", "list", "-v", "-C", str(other)], isolated_home)
    assert marker.exists(), words(elsewhere)
    marker.unlink()
    again = run_cli(["mcp", "enable", "probe", "--here", "-C", str(tmp_path / "feature")], isolated_home)
    assert again.returncode == 0, words(again)
    run_cli(["mcp", "list", "-v", "-C", str(main)], isolated_home)
    assert marker.exists()


def test_the_organisations_policy_wins_over_profiles(isolated_home: Path, tmp_path: Path) -> None:
    """The profile leaves out the server the policy requires, and names one it denies: the first
    runs, the second does not."""
    marker = tmp_path / "marker"
    write_settings(
        isolated_home,
        {"mcpServers": {"probe": hostile_entry(marker)}, "profiles": {"mine": {"servers": ["probe"]}}},
    )
    policy = policy_file(
        tmp_path,
        {
            "requiredMcpServers": {"docs": {"command": node_server("mcp-server-memory")}},
            "deniedMcpServers": [{"name": "probe"}],
        },
    )
    done = under_policy(policy, isolated_home, tmp_path, "--profile", "mine", "mcp", "list", "-v")
    turned = under_policy(policy, isolated_home, tmp_path, "mcp", "disable", "docs", "--here")
    assert not marker.exists(), words(done)
    assert f"docs · running · organisation · {policy}" in done.stdout
    assert "probe · blocked by your organisation's policy" in done.stdout
    assert turned.returncode == 1
    assert "it cannot be disabled" in turned.stderr


@pytest.mark.parametrize("action", ["disable", "enable"])
def test_here_names_only_configured_servers(isolated_home: Path, tmp_path: Path, action: str) -> None:
    done = run_cli(["mcp", action, "nope", "--here", "-C", str(tmp_path)], isolated_home)
    assert done.returncode == 2
    assert "no MCP server named 'nope'" in done.stderr


def test_a_server_spawned_early_last_time_is_not_spawned_once_turned_off(
    isolated_home: Path, tmp_path: Path
) -> None:
    """`levelcode mcp list` spawns, before it even reads its arguments, what the same command line
    spawned last time (mcp/stdio/remembered.py): turning the server off here must end that."""
    marker = tmp_path / "marker"
    servers(isolated_home, marker)
    first = run_cli(["mcp", "list", "-v", "-C", str(tmp_path)], isolated_home, cwd=tmp_path)
    assert marker.exists(), words(first)
    marker.unlink()
    run_cli(["mcp", "disable", "probe", "--here", "-C", str(tmp_path)], isolated_home, cwd=tmp_path)
    again = run_cli(["mcp", "list", "-v", "-C", str(tmp_path)], isolated_home, cwd=tmp_path)
    assert not marker.exists(), words(again)
