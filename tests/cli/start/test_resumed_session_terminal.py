"""Going on with a saved session in a real terminal (tmux): `levelcode --resume` lists this
workspace's sessions, a number and Enter pick one, its last turns are shown, and the next message
reaches the API after that session's conversation; `levelcode -c` goes on with the latest, its
cost carried on in `/cost`, and a repository's server passes the launch gate as in any start;
Escape leaves the picker with nothing resumed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.scripted_server import Reply, ScriptedServer
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal


def _headless(server: ScriptedServer, home: Path, workspace: Path, prompt: str) -> None:
    command = [str(LEVELCODE), "run", *provider_flags("anthropic", server.base_url, ANTHROPIC.model), prompt]
    env = provider_env(home, "anthropic")
    done = subprocess.run(
        command, cwd=workspace, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


def _start(terminal: Terminal, server: ScriptedServer, home: Path, workspace: Path, *flags: str) -> None:
    env = provider_env(home, "anthropic", TERM="xterm-256color")
    argv = [str(LEVELCODE), *provider_flags("anthropic", server.base_url, ANTHROPIC.model), *flags]
    terminal.start(argv, env, cwd=str(workspace))


def test_the_picker_resumes_the_chosen_session(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    steps = [Reply(text="Answer one."), Reply(text="Answer two."), Reply(text="Answer three.")]
    with ANTHROPIC.fake(steps) as server:
        _headless(server, isolated_home, tmp_path, "first thing")
        _headless(server, isolated_home, tmp_path, "second thing")
        _start(terminal, server, isolated_home, tmp_path, "--resume")
        screen = terminal.wait_for("Resume a session (2 saved here)")
        rows = [line for line in screen.splitlines() if "1 turn" in line]
        assert [row.split()[-2:] for row in rows] == [["second", "thing"], ["first", "thing"]]
        terminal.send("2")
        terminal.wait_for(">  2 ")
        terminal.send("Enter")
        screen = terminal.wait_for("/help for commands")
        assert "Resumed session " in screen
        assert "> first thing" in screen
        assert "  Answer one." in screen
        assert "second thing" not in screen.split("Resumed session ")[1]
        terminal.wait_for_prompt()
        terminal.type("and more")
        terminal.send("Enter")
        terminal.wait_for("Answer three.")
        sent = [json.dumps(message["content"]) for message in server.requests[-1].body["messages"]]
        assert len(sent) == 3
        assert ["first thing" in sent[0], "Answer one." in sent[1], "and more" in sent[2]] == [True] * 3
        terminal.wait_for_prompt()
        terminal.send("C-d")
        screen = terminal.wait_for("[exited 0]")
        assert "Session saved: levelcode -c goes on with it" in screen


def test_continue_goes_on_with_the_latest_and_its_cost(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    steps = [Reply(text="Answer one."), Reply(text="Answer two.")]
    with ANTHROPIC.fake(steps) as server:
        _headless(server, isolated_home, tmp_path, "first thing")
        _start(terminal, server, isolated_home, tmp_path, "-c")
        screen = terminal.wait_for("/help for commands")
        assert "Resumed session " in screen
        assert "1 turn · claude-sonnet-5-5" in screen
        terminal.wait_for_prompt()
        terminal.type("again")
        terminal.send("Enter")
        terminal.wait_for("Answer two.")
        terminal.wait_for_prompt()
        terminal.type("/cost")
        terminal.send("Enter")
        screen = terminal.wait_for("  session ")
        rows = {
            " ".join(line.split()[:-5]): line.split()[-5:]
            for line in screen.splitlines()
            if line.startswith(("  turn ", "  session "))
        }
        assert list(rows) == ["turn 1", "turn 2", "session"]  # the saved turn, then this one
        assert rows["turn 1"][-1].startswith("$0.0")
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")


def test_escape_leaves_the_picker_with_nothing_resumed(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    with ANTHROPIC.fake([Reply(text="Answer one.")]) as server:
        _headless(server, isolated_home, tmp_path, "first thing")
        _start(terminal, server, isolated_home, tmp_path, "-r")
        terminal.wait_for("Resume a session (1 saved here)")
        terminal.send("Escape")
        screen = terminal.wait_for("[exited 0]")
        assert "no session chosen; nothing was resumed" in screen
        assert len(server.requests) == 1


def test_a_resumed_session_passes_the_launch_gate_as_any_start(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"probe": entry}}))
    with ANTHROPIC.fake([Reply(text="Answer one."), Reply(text="Answer two.")]) as server:
        _headless(server, isolated_home, tmp_path, "first thing")  # headless: the server never starts
        _start(terminal, server, isolated_home, tmp_path, "-c")
        screen = terminal.answer("n")
        assert "Start an MCP server?" in screen
        assert str(FAULT_SERVER) in screen
        screen = terminal.wait_for("/help for commands")
        assert "> first thing" in screen
        terminal.wait_for_prompt()
        terminal.type("again")
        terminal.send("Enter")
        terminal.wait_for("Answer two.")
        sent = json.dumps(server.requests[-1].body["messages"])
        assert "first thing" in sent
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
