"""What a message can hold, typed in a real terminal (tmux) and checked where it arrives (the fake
API's request): several lines (Alt-Enter, Esc then Enter, a trailing backslash then Enter, a
bracketed paste), each sent as one message when Enter is pressed."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_server import RecordedRequest, Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.terminal import Terminal


def start_repl(terminal: Terminal, home: Path, workspace: Path, base_url: str) -> None:
    argv = [str(LEVELCODE), *provider_flags("openai", base_url, OPENAI.model)]
    terminal.start(argv, provider_env(home, "openai", TERM="xterm-256color"), cwd=str(workspace))
    terminal.wait_for_prompt(within=40)


def user_text(request: RecordedRequest) -> str:
    """The last user message's text, as the API received it."""
    message = request.body["messages"][-1]
    assert message["role"] == "user"
    content = message["content"]
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


def test_a_message_of_several_lines_is_sent_whole(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    with OPENAI.fake([Reply(text="got three"), Reply(text="got the paste")]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.type("first line")
        terminal.send("M-Enter")  # Alt-Enter
        terminal.type("second line")
        terminal.send("Escape", "Enter")
        terminal.type("third line\\")
        terminal.send("Enter")
        terminal.type("fourth")
        terminal.wait_for("  fourth")
        assert server.requests == []  # none of those keys sent it
        terminal.send("Enter")
        terminal.wait_for("got three")
        terminal.wait_for_prompt()
        terminal.paste("pasted one\npasted two\n\npasted four")
        terminal.wait_for("  pasted four")
        terminal.send("Enter")
        terminal.wait_for("got the paste")
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        typed, pasted = (user_text(request) for request in server.requests)
    assert typed == "first line\nsecond line\nthird line\nfourth"
    assert pasted == "pasted one\npasted two\n\npasted four"
