"""A resource the conversation uses changes while the REPL waits at its prompt (tmux): the line
saying so appears above the idle prompt as the update arrives — not only after the next message
— and the prompt stays as it was; the next message then brings the model the new copy."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli, write_settings
from tests.support.http_servers import running, sdk_server
from tests.support.terminal import Terminal

CHANGED = "MCP resource changed: @sdk:test://note (the model is told with your next message)"


def test_a_resource_change_shows_at_the_idle_prompt(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    with running(sdk_server()) as sdk, ANTHROPIC.fake([Reply(text="Noted."), Reply(text="Seen.")]) as model:
        write_settings(isolated_home, {"mcpServers": {"sdk": {"url": sdk.url}}})
        env = provider_env(isolated_home, "anthropic", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("anthropic", model.base_url, ANTHROPIC.model)]
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.wait_for("/help for commands")
        terminal.type("summarise @sdk:test://note")
        terminal.send("Enter")
        terminal.wait_for("Noted.")
        terminal.wait_for_prompt()
        terminal.type("half-typed")
        edited = run_cli(
            ["mcp", "call", "sdk", "edit_note", json.dumps({"text": "moved to Friday"})], isolated_home
        )
        assert edited.returncode == 0, edited.stderr
        screen = terminal.wait_for(CHANGED)  # nothing was sent: the line came by itself
        assert len(model.requests) == 1
        assert screen.rstrip().endswith("> half-typed")  # the prompt, and what was typed, redrawn below it
        terminal.send("C-u")
        terminal.type("and now?")
        terminal.send("Enter")
        terminal.wait_for("Seen.")
        assert "moved to Friday" in json.dumps(model.requests[-1].body)
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
