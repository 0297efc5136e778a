"""`/init` in a real terminal (tmux): the model is asked to look at the repository with the read
and search tools and write AGENTS.md, and its write asks like any edit; where AGENTS.md exists it
is asked to read it and improve it with exact edits, not to rewrite it, and the edit keeps the
rest of the file. `/new` reads the new AGENTS.md into the system prompt."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.terminal import Terminal

WRITTEN = "# AGENTS.md\n\nRun the tests with `make test`.\n"


def _start(terminal: Terminal, server: ScriptedServer, home: Path, workspace: Path) -> None:
    env = provider_env(home, "openai", TERM="xterm-256color")
    terminal.start(
        [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)], env, str(workspace)
    )
    terminal.wait_for("/help for commands")
    terminal.type("/init")
    terminal.send("Enter")


def _first_prompt(server: ScriptedServer) -> str:
    user = [m for m in server.requests[0].body["messages"] if m["role"] == "user"]
    return str(user[0]["content"])


def test_init_writes_agents_md_through_the_edit_card(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "README.md").write_text("# Demo\n\nmake test runs the tests.\n")
    steps = [
        Reply(tool_calls=(ToolCall("read_file", {"path": "README.md"}),)),
        Reply(tool_calls=(ToolCall("write_file", {"path": "AGENTS.md", "content": WRITTEN}),)),
        Reply(text="Wrote AGENTS.md: commands and layout."),
        Reply(text="A new chat answers."),
    ]
    with OPENAI.fake(steps) as server:
        _start(terminal, server, isolated_home, tmp_path)
        screen = terminal.wait_for_keys()
        assert "Change a file?" in screen
        assert "AGENTS.md" in screen
        terminal.press("y")
        terminal.wait_for("Wrote AGENTS.md: commands and layout.")
        prompt = _first_prompt(server)
        assert (tmp_path / "AGENTS.md").read_text() == WRITTEN
        assert "Write an AGENTS.md file at the root of this repository" in prompt
        assert "read_file, list_directory, find_files and search_files" in prompt
        terminal.wait_for_prompt()
        terminal.type("/new")
        terminal.send("Enter")
        terminal.wait_for("New chat.")
        terminal.type("hi")
        terminal.send("Enter")
        terminal.wait_for("A new chat answers.")
        system = server.requests[-1].body["messages"][0]["content"]
        assert "Run the tests with `make test`." in system  # /new read the new AGENTS.md
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")


def test_init_improves_an_existing_agents_md_with_an_edit(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("# AGENTS.md\n\nUse tabs.\nRun `make tset`.\n")
    steps = [
        Reply(tool_calls=(ToolCall("read_file", {"path": "AGENTS.md"}),)),
        Reply(
            tool_calls=(
                ToolCall(
                    "edit_file", {"path": "AGENTS.md", "old_string": "make tset", "new_string": "make test"}
                ),
            )
        ),
        Reply(text="Fixed the test command."),
    ]
    with OPENAI.fake(steps) as server:
        _start(terminal, server, isolated_home, tmp_path)
        screen = terminal.wait_for_keys()
        assert "Change a file?" in screen
        terminal.press("y")
        terminal.wait_for("Fixed the test command.")
        prompt = _first_prompt(server)
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    assert "has an AGENTS.md already" in prompt
    assert "do not rewrite it from scratch" in prompt
    assert "Read AGENTS.md first" in prompt
    assert (tmp_path / "AGENTS.md").read_text() == "# AGENTS.md\n\nUse tabs.\nRun `make test`.\n"
