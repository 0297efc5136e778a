"""`levelcode "PROMPT"` in a real terminal (tmux): the session starts and sends PROMPT as its first
message — shown as typed, answered, saved — and then the prompt is up for the next one, exactly
as if PROMPT had been typed there. Without a terminal, the refusal names `levelcode -p`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli
from tests.support.terminal import Terminal


def _user_text(request_body: dict[str, object]) -> str:
    messages = request_body["messages"]
    assert isinstance(messages, list)
    content = messages[-1]["content"]
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


def test_the_prompt_on_the_command_line_is_the_first_message(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    with OPENAI.fake([Reply(text="First answer."), Reply(text="Second answer.")]) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model), "say hello"]
        terminal.start(argv, env, cwd=str(tmp_path))
        screen = terminal.wait_for("First answer.")
        assert "> say hello" in screen
        terminal.wait_for_prompt()
        terminal.type("and again")
        terminal.send("Enter")
        terminal.wait_for("Second answer.")
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        first, second = (request.body for request in server.requests)
    assert _user_text(first) == "say hello"
    assert _user_text(second) == "and again"
    assert "First answer." in json.dumps(second["messages"])  # one conversation


def test_without_a_terminal_the_refusal_names_print_mode(isolated_home: Path, tmp_path: Path) -> None:
    done = run_cli(["-C", str(tmp_path), "say hello"], isolated_home)
    assert done.returncode == 2
    assert 'levelcode -p "PROMPT"' in done.stderr
