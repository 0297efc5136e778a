"""`/mcp`, `/context` and `levelcode mcp list` as a user sees them in a real terminal (tmux):
every configured server with its state and origin, "command changed" told apart from "never
approved", stale approvals named, and the context split with MCP carved out of the tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.trust_store import TrustStore
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, run_cli, write_settings
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal


def _setup(home: Path, workspace: Path) -> None:
    fault = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER)],
        "env": {"FAULT_PID_FILE": str(workspace / "pids")},
    }
    write_settings(home, {"mcpServers": {"fault": fault}, "mcpToolPolicy": {"fault__echo": "allow"}})
    config = workspace / ".mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "repo": {"command": "node", "args": ["server.js"]},
                    "fresh": {"command": "node", "args": ["other.js"]},
                }
            }
        )
    )
    store = TrustStore(home / "state" / "trust.json")
    approved = parse_workspace_file(
        {"repo": {"command": "node", "args": ["old.js"]}}, file=str(config)
    ).servers[0]
    store.approve(workspace, approved, "node old.js")
    gone = parse_workspace_file(
        {"gone": {"command": "npx", "args": ["old-server"]}}, file=str(config)
    ).servers[0]
    store.approve(workspace, gone, "npx old-server")


def test_mcp_list_in_a_terminal_and_piped(terminal: Terminal, isolated_home: Path, tmp_path: Path) -> None:
    _setup(isolated_home, tmp_path)
    terminal.start(
        [str(LEVELCODE), "mcp", "list", "-v"],
        cli_env(isolated_home, TERM="xterm-256color"),
        cwd=str(tmp_path),
    )
    screen = terminal.wait_for("[exited 0]")
    assert "● fault  running" in screen
    assert "✓ fault__echo" in screen
    assert "? fault__hang" in screen
    assert "repo  command changed — needs approval   workspace" in screen
    assert "fresh  needs approval   workspace" in screen
    assert "approve with: levelcode mcp trust repo" in screen
    assert "gone: npx old-server" in screen
    piped = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert "\x1b[" not in piped.stdout
    assert "repo · command changed — needs approval · workspace" in piped.stdout
    assert "fresh · needs approval · workspace" in piped.stdout
    assert "    fault__echo  [allow · read-only]" in piped.stdout


def test_slash_mcp_and_slash_context_in_the_repl(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    _setup(isolated_home, tmp_path)
    with OPENAI.fake([Reply(text="hello there")]) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        terminal.start(
            [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)], env, cwd=str(tmp_path)
        )
        screen = terminal.wait_for_keys()  # the changed server asks first
        assert "command changed · MCP server 'repo'" in screen
        terminal.press("n")
        terminal.answer("n")  # then the never-approved one
        terminal.wait_for("/help for commands")
        terminal.wait_for("mcp · fault (16) · 1/16 allow-listed")  # shown above the prompt once up
        terminal.type("hi")
        terminal.send("Enter")
        terminal.wait_for("hello there")
        terminal.type("/mcp")
        terminal.send("Enter")
        screen = terminal.wait_for("gone: npx old-server")
        assert "repo  denied — `levelcode mcp trust repo` to reconsider" in screen  # remembered
        assert "fresh  denied — `levelcode mcp trust fresh` to reconsider" in screen
        assert "16 tools · ~" in screen
        terminal.type("/context")
        terminal.send("Enter")
        screen = terminal.wait_for("  total")
        for label in ("system prompt", "tools", "  built-in", "  MCP", "    fault", "messages"):
            assert label in screen
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
