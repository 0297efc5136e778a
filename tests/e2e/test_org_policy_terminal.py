"""The organisation's policy as the interactive session shows it, in a real terminal (tmux): a tool
the user allowed asks anyway when the policy says "ask", the card names the policy and offers no
"always"; `/mcp` says which server the policy blocked. Load-bearing direction: under the policy the
user's allow entry does not run the tool unasked (the card appears); without it, it does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import provider_env, provider_flags, write_settings
from tests.support.managed_levelcode import policy_command
from tests.support.org_policy import hostile_entry, policy_file
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal, shows_wrapped


def start_repl(terminal: Terminal, policy: Path, home: Path, workspace: Path, base_url: str) -> None:
    env = provider_env(home, "openai", TERM="xterm-256color")
    argv = [*policy_command(policy), *provider_flags("openai", base_url, OPENAI.model)]
    terminal.start(argv, env, cwd=str(workspace))


def touching(marker: Path) -> list[Reply]:
    return [
        Reply(tool_calls=(ToolCall("fault__touch_marker", {"path": str(marker)}),)),
        Reply(text="ok then"),
    ]


def scene(home: Path, tmp_path: Path) -> dict[str, Any]:
    fault = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    settings = {
        "mcpServers": {"fault": fault, "evil": hostile_entry(tmp_path / "evil-ran")},
        "mcpToolPolicy": {"fault__touch_marker": "allow"},
    }
    write_settings(home, settings)
    return settings


def test_the_organisations_ask_shows_the_card_the_user_allowed_away(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    scene(isolated_home, tmp_path)
    marker = tmp_path / "marker"
    policy = policy_file(
        tmp_path, {"mcpToolPolicy": {"fault__touch_*": "ask"}, "deniedMcpServers": [{"name": "evil"}]}
    )
    with OPENAI.fake(touching(marker)) as server:
        start_repl(terminal, policy, isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        terminal.type("touch it")
        terminal.send("Enter")
        screen = terminal.wait_for_keys()
        assert "MCP call · fault · touch_marker" in screen
        said = f"asked before every call by your organisation's policy ({policy})"
        assert shows_wrapped(screen, said + ': mcpToolPolicy["fault__touch_*"]')
        assert "always allow" not in screen
        assert not marker.exists()
        terminal.answer("y")
        terminal.wait_for("ok then")
        assert marker.exists()
        terminal.wait_for_prompt()
        terminal.type("/mcp")
        terminal.send("Enter")
        terminal.wait_for("evil  blocked by your organisation's policy")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    assert not (tmp_path / "evil-ran").exists()


def test_without_the_policy_the_users_allow_runs_it_unasked(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    scene(isolated_home, tmp_path)
    marker = tmp_path / "marker"
    with OPENAI.fake(touching(marker)) as server:
        start_repl(terminal, tmp_path / "absent.json", isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        terminal.type("touch it")
        terminal.send("Enter")
        terminal.wait_for("ok then")
        assert marker.exists()
        assert "Call an MCP tool?" not in terminal.screen()
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
