"""`/mcp restart NAME` in a real terminal (tmux): a server that failed at start is named under
`/mcp` with the command that tries it again; once what it lacked is there, the restart brings it
up without a new chat, and the model's next request offers its tools — the conversation kept."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.servers import fault_args_once
from tests.support.terminal import Terminal


def flaky_server(marker: Path, pid_file: Path) -> dict[str, object]:
    args = list(fault_args_once(marker))
    return {"command": sys.executable, "args": args, "env": {"FAULT_PID_FILE": str(pid_file)}}


def test_a_failed_server_restarts_in_the_session(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "db"
    write_settings(isolated_home, {"mcpServers": {"flaky": flaky_server(marker, tmp_path / "pids")}})
    with ANTHROPIC.fake([Reply(text="First answer."), Reply(text="Second answer.")]) as server:
        env = provider_env(isolated_home, "anthropic", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("anthropic", server.base_url, ANTHROPIC.model)]
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.wait_for("/help for commands")
        terminal.type("hi")
        terminal.send("Enter")
        terminal.wait_for("First answer.")
        assert not any(name.startswith("flaky__") for name in ANTHROPIC.offered_tools(server.requests[-1]))
        terminal.wait_for_prompt()
        terminal.type("/mcp")
        terminal.send("Enter")
        screen = terminal.wait_for("/mcp restart flaky starts it again.")
        assert "no database yet" in screen
        terminal.wait_for_prompt()
        marker.write_text("ready")
        terminal.type("/mcp restart flaky")
        terminal.send("Enter")
        terminal.wait_for("Restarted 'flaky': running,")
        terminal.wait_for_prompt()
        terminal.type("again")
        terminal.send("Enter")
        terminal.wait_for("Second answer.")
        last = server.requests[-1]
        assert "flaky__echo" in ANTHROPIC.offered_tools(last)
        assert len(last.body["messages"]) == 3  # the first turn is still there
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
