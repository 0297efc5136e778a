"""The REPL in a real terminal (tmux): a dim tokens-and-cost line after each turn, `/cost` with
each turn and the session, `/help` naming it; and a turn aborted with Ctrl-C reaching the API as
its own request, marked as interrupted, not glued to the next message."""

from __future__ import annotations

from pathlib import Path

from levelcode.agent.transcript import INTERRUPTED_NOTE
from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.terminal import Terminal


def test_tokens_and_cost_per_turn_and_an_aborted_turn_stays_its_own(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    steps = [Reply(text="Hello."), Reply(text="thinking…", hang=True), Reply(text="Next answer.")]
    with ANTHROPIC.fake(steps) as server:
        env = provider_env(isolated_home, "anthropic", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("anthropic", server.base_url, ANTHROPIC.model)]
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.wait_for("/help for commands")
        terminal.type("hi")
        terminal.send("Enter")
        screen = terminal.wait_for("(session $")
        line = next(line for line in screen.splitlines() if line.startswith("tokens: "))
        assert " in · " in line
        assert " out · $0.0" in line
        terminal.type("SLOW x")
        terminal.send("Enter")
        assert server.hanging.wait(20)
        terminal.send("C-c")
        terminal.wait_for("⏹ aborted")
        terminal.type("next y")
        terminal.send("Enter")
        terminal.wait_for("Next answer.")
        last_user = server.requests[-1].body["messages"][-1]
        assert [block["text"] for block in last_user["content"]] == ["SLOW x", INTERRUPTED_NOTE, "next y"]
        terminal.wait_for_prompt()
        terminal.type("/help")
        terminal.send("Enter")
        terminal.wait_for("/cost      tokens and cost")
        terminal.type("/cost")
        terminal.send("Enter")
        screen = terminal.wait_for("  session ")
        assert "Tokens and cost (claude-sonnet-5-5)" in screen
        assert "per million tokens (the provider's list price): input $2.00 · cache read $0.10" in screen
        rows = {
            " ".join(line.split()[:-5]): line.split()[-5:]
            for line in screen.splitlines()
            if line.startswith(("  turn ", "  session "))
        }
        assert list(rows) == ["turn 1", "turn 2", "turn 3", "session"]
        assert rows["turn 2"] == ["0", "0", "0", "0", "$0.00"]  # aborted before any answer: nothing billed
        assert rows["session"][-1].startswith("$0.0")
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
