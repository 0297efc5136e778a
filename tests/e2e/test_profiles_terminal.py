"""`/profile` and `/mcp disable` in a real terminal (tmux): switching restarts the servers through
the launch gate and keeps what was typed meanwhile; a server turned off in the REPL stays off in
another worktree of the repository. Load-bearing direction: after the switch only the new
profile's servers run, and text typed during the restart is not lost."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli, write_settings
from tests.support.git_layouts import run_git
from tests.support.servers import FAULT_SERVER, node_server
from tests.support.terminal import Terminal


def test_profile_switches_servers_keeps_typed_text_and_a_disable_holds_in_a_worktree(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    slow = {"command": sys.executable, "args": [str(FAULT_SERVER), "--slow-start", "3"]}
    write_settings(
        isolated_home,
        {
            "mcpServers": {"memory": {"command": node_server("mcp-server-memory")}, "slow": slow},
            "profiles": {"mem": {"servers": ["memory"]}, "both": {"servers": ["memory", "slow"]}},
        },
    )
    with OPENAI.fake([]) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model), "--profile", "mem"]
        terminal.start(argv, env, cwd=str(repo))
        terminal.wait_for("mcp · memory (")
        terminal.wait_for_prompt()
        terminal.type("/profile")
        terminal.send("Enter")
        terminal.wait_for("This session uses profile 'mem'. Profiles:")
        terminal.wait_for_prompt()
        terminal.type("/profile both")
        terminal.send("Enter")
        terminal.wait_for("starting MCP servers")
        terminal.type("kept while it restarts")
        terminal.wait_for("Now using profile 'both'.")
        terminal.wait_for_prompt(typed="kept while it restarts")
        assert (
            "mcp · memory ("
            in terminal.screen().rsplit("Now using profile", 1)[0].rsplit("/profile both", 1)[1]
        )
        terminal.send("C-u")
        terminal.type("/mcp disable memory")
        terminal.send("Enter")
        terminal.wait_for("Disabled 'memory' in every worktree of the repository")
        terminal.wait_for_prompt()
        terminal.type("/mcp")
        terminal.send("Enter")
        terminal.wait_for(
            "memory  disabled in this workspace (enable with: levelcode mcp enable memory --here)"
        )
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    run_git(repo, "worktree", "add", "-q", str(tmp_path / "feature"))
    listed = run_cli(["mcp", "list", "-v", "-C", str(tmp_path / "feature")], isolated_home)
    assert "memory · disabled in this workspace" in listed.stdout, listed.stdout + listed.stderr
    assert "slow · running" in listed.stdout
