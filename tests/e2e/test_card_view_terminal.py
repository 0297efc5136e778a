"""A call card whose argument is too long to show, in a real terminal (tmux). Load-bearing
direction: the card says that it cuts text, and before answering the user can see every character
of every argument — the `; DROP TABLE users` tail of a long SQL string, control characters
escaped — and then answer the same card. The second corpus: a card that cuts nothing offers no
[v]."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_mcp_cards_terminal import fault_entry, start_repl
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import write_settings
from tests.support.terminal import Terminal

SQL = "SELECT name FROM users WHERE note = '" + "x" * 400 + "'\x1b[2K; DROP TABLE users"


def count(text: str) -> Reply:
    return Reply(tool_calls=(ToolCall("fault__count_chars", {"text": text}),))


def test_the_tail_of_a_cut_argument_can_be_seen_before_answering(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    write_settings(isolated_home, {"mcpServers": {"fault": fault_entry(tmp_path / "pids")}})
    with OPENAI.fake([count(SQL), Reply(text="counted"), count("short"), Reply(text="again")]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        terminal.type("count it")
        terminal.send("Enter")
        card = terminal.wait_for_keys()
        assert "more chars]" in card
        assert "this card cuts some of its text: [v] shows all of it before you answer" in card
        assert "DROP TABLE" not in card
        terminal.press("v")
        screen = terminal.wait_for_keys()
        full = screen[screen.index("MCP call · fault · count_chars · in full") :]
        assert "\\u001b[2K; DROP TABLE users" in full.replace("\n", "")  # escaped, not acted on
        assert "[v] view all" in full.split("the card again below")[-1]  # the same card, again
        terminal.press("y")
        terminal.wait_for(f"{len(SQL)} characters")
        terminal.wait_for("counted")
        terminal.wait_for_prompt()
        terminal.type("once more")
        terminal.send("Enter")
        card = terminal.wait_for_keys()
        short = card[card.rindex("MCP call · fault · count_chars") :]
        assert '"text": "short"' in short
        assert "[v]" not in short
        terminal.press("n")
        terminal.wait_for("again")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
