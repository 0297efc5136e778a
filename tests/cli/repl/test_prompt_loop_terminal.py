"""The interactive session in a real terminal (tmux): streamed answers, slash commands, an
approval card answered with one key, Ctrl-C aborting a turn without leaving, Ctrl-D leaving —
also when it is pressed while a command still works, before the next prompt reads the terminal."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_mcp_cards_terminal import fault_entry
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, write_settings
from tests.support.processes import read_pids, survivors
from tests.support.terminal import Terminal


def test_repl_streams_asks_aborts_and_leaves(terminal: Terminal, isolated_home: Path, tmp_path: Path) -> None:
    steps = [
        Reply(text="Hello from the **model**.\n\n- one\n- two"),
        Reply(text="thinking…", hang=True),
        Reply(text="Still here after the abort."),
        Reply(tool_calls=(ToolCall("run_command", {"command": "echo hi > out.txt"}),)),
        Reply(text="Wrote out.txt."),
    ]
    with OPENAI.fake(steps) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)]
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.wait_for("/help for commands")
        terminal.type("hi")
        terminal.send("Enter")
        screen = terminal.wait_for("• two")
        assert "Hello from the model." in screen
        terminal.type("/help")
        terminal.send("Enter")
        terminal.wait_for("/new       start a new chat")
        terminal.type("take your time")
        terminal.send("Enter")
        assert server.hanging.wait(20)
        terminal.send("C-c")
        terminal.wait_for("⏹ aborted")
        terminal.type("are you there?")
        terminal.send("Enter")
        terminal.wait_for("Still here after the abort.")
        terminal.type("write a file")
        terminal.send("Enter")
        screen = terminal.wait_for_keys()
        assert "Run a command?" in screen
        assert "echo hi > out.txt" in screen
        terminal.press("y")
        terminal.wait_for("Wrote out.txt.")
        assert (tmp_path / "out.txt").read_text() == "hi\n"
        terminal.type("/new")
        terminal.send("Enter")
        terminal.wait_for("New chat.")
        terminal.send("C-d")  # at once: the next prompt may not be reading yet, and it must leave
        terminal.wait_for("[exited 0]")


def test_ctrl_d_pressed_while_a_command_works_leaves_at_the_next_prompt(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    """No prompt reads while /new restarts a slow server: the terminal holds the key, and the next
    prompt must take it as Ctrl-D. With the terminal's own end-of-file key on, it made the key an
    empty end of line, which the prompt read as Ctrl-@: the session stayed (ui/typeahead.py)."""
    pid_file = tmp_path / "pids"
    slow = fault_entry(pid_file)
    slow["args"] = [*slow["args"], "--slow-start", "3"]
    write_settings(isolated_home, {"mcpServers": {"slow": slow}})
    with OPENAI.fake([]) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)]
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.wait_for_prompt(within=40)
        terminal.type("/new")
        terminal.send("Enter")
        terminal.wait_for("starting MCP servers: slow · ")  # /new restarts it: no prompt is up
        terminal.send("C-d")
        terminal.wait_for("New chat.")
        terminal.wait_for("[exited 0]")
    assert survivors(read_pids(pid_file)) == []


def test_repl_refuses_without_a_terminal(isolated_home: Path) -> None:
    import subprocess

    done = subprocess.run(
        [str(LEVELCODE)],
        capture_output=True,
        text=True,
        env=cli_env(isolated_home),
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "levelcode run" in done.stderr
