"""What can be typed at the prompt, in a real terminal (tmux), checked where it arrives (the fake
API's request): messages of several lines (Alt-Enter, Esc then Enter, a trailing backslash then
Enter, a bracketed paste), each sent as one message when Enter is pressed; `@path` attachments;
`!cmd` shell lines, run as the model's commands run. Load-bearing direction: a path outside the
allowed directories is never attached, and a `!cmd` the sandbox blocks stays blocked unless the
card that lifts the sandbox says yes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.scripted_server import RecordedRequest, Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.sandbox import host_folder
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


def test_at_path_completes_attaches_and_refuses_outside(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    workspace, outside = tmp_path / "work", tmp_path / "outside"
    (workspace / "src").mkdir(parents=True)
    outside.mkdir()
    (workspace / "src" / "app.py").write_text("def value():\n    return 1\n")
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (outside / "secret.txt").write_text("top-secret-marker")
    with OPENAI.fake([Reply(text="It returns 1.")]) as server:
        start_repl(terminal, isolated_home, workspace, server.base_url)
        terminal.type("what does @sr")
        terminal.wait_for("src/")  # the menu, while typing
        terminal.send("Tab")
        terminal.wait_for("> what does @src/")
        terminal.type("ap")
        terminal.send("Tab")  # at once: the completions asked for while typing may not be there yet
        terminal.wait_for("> what does @src/app.py")
        terminal.type(" do? not @../outside/secret.txt nor @logo.png")
        terminal.send("Enter")
        screen = terminal.wait_for("It returns 1.")
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        (request,) = server.requests
    assert "@../outside/secret.txt: not attached: path '../outside/secret.txt' resolves to" in screen
    assert "which is outside the directories this session may use" in screen
    assert "@logo.png: not attached: logo.png is a binary file (10 bytes); only text is attached" in screen
    assert "attached: @src/app.py (26 chars)" in screen
    sent = user_text(request)
    assert sent.startswith("what does @src/app.py do? not @../outside/secret.txt nor @logo.png")
    assert "<file path='src/app.py'>\ndef value():\n    return 1\n\n</file>" in sent
    assert "top-secret-marker" not in str(request.body)
    assert "PNG" not in sent


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


@pytest.mark.sandbox
def test_a_shell_line_runs_as_the_models_commands_do_without_a_card(
    terminal: Terminal, isolated_home: Path, tmp_path: Path, outside: Path
) -> None:
    marker = outside / "marker"
    with OPENAI.fake([Reply(text="Both seen.")]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.type("!echo hello from $0 in $PWD > said.txt; cat said.txt")
        terminal.send("Enter")
        terminal.wait_for(f"hello from bash in {tmp_path}")
        terminal.wait_for("(this output goes to the model with your next message)")
        assert (tmp_path / "said.txt").exists()  # it ran, in the workspace, without a card
        terminal.wait_for_prompt()
        terminal.type(f"!touch {marker}")
        terminal.send("Enter")
        card = terminal.wait_for_keys()  # the sandbox blocked it: the same card as the model's
        assert "Run again outside the sandbox" in card
        assert "Runs OUTSIDE the sandbox" in card
        terminal.press("n")
        terminal.wait_for("[the user did not allow a run outside the sandbox]")
        terminal.wait_for_prompt()
        assert not marker.exists()
        terminal.type("what happened?")
        terminal.send("Enter")
        screen = terminal.wait_for("Both seen.")
        first = "!echo hello from $0 in $PWD > said.txt; cat said.txt"
        assert f"attached: {first} (output) · !touch {marker} (output)" in screen
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        (request,) = server.requests
    assert screen.count("Run a command?") == 1  # only the card that would lift the sandbox
    sent = user_text(request)
    assert sent.startswith("what happened?\n\nThe user ran this shell command in the session;")
    assert f"hello from bash in {tmp_path}\n[exit code 0]" in sent
    assert f"<command-output command='touch {marker}'>" in sent
    assert "[sandbox]" in sent
