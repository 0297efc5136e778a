"""A repository that asks for many servers, in a real terminal (tmux): one card lists them all
(name and command each) before any server's own card. Load-bearing direction: "deny all" (and
Esc) starts none of them — the marker each would write never appears — and is remembered, so the
next session asks nothing and says, in one line, what it did not start and how to reconsider;
`/mcp` says "denied — `levelcode mcp trust NAME` to reconsider". The second corpus: "review each"
shows each server's own card in turn, and `levelcode mcp trust NAME` asks about a denied one again.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.launch.trust_store import TrustStore
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags
from tests.support.terminal import Terminal

MARKER_CODE = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('pwned')"
PROMPT = "press a key"
NAMES = ("alpha", "bravo", "charlie", "delta", "echo")


def many_servers(workspace: Path, markers: Path) -> None:
    entries = {
        name: {"command": sys.executable, "args": ["-c", MARKER_CODE, str(markers / name)]} for name in NAMES
    }
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": entries}))
    markers.mkdir()


def start_repl(terminal: Terminal, home: Path, workspace: Path, base_url: str) -> None:
    env = provider_env(home, "openai", TERM="xterm-256color")
    terminal.start(
        [str(LEVELCODE), *provider_flags("openai", base_url, OPENAI.model)], env, cwd=str(workspace)
    )


@contextlib.contextmanager
def another_terminal(terminal: Terminal, label: str) -> Iterator[Terminal]:
    """A second terminal on a tmux server of its own (reusing one just killed can race its end)."""
    terminal.close()
    second = Terminal(f"{terminal.name[:30]}-{label}")
    try:
        yield second
    finally:
        second.close()


def wait_for_cards(terminal: Terminal, count: int, within: float = 20.0) -> str:
    """The screen once `count` cards have asked for a key (earlier ones stay in the scrollback)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        screen = terminal.screen()
        if screen.count(PROMPT) >= count:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{count} cards did not appear; the terminal shows:\n{terminal.screen()}")


def states(home: Path, workspace: Path) -> set[str]:
    store = TrustStore(home / "state" / "trust.json")
    return {store.state(workspace, spec) for spec in load_mcp_config(workspace).servers}


def test_deny_all_starts_none_and_the_next_session_asks_nothing(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    workspace, markers = tmp_path / "repo", tmp_path / "markers"
    workspace.mkdir()
    many_servers(workspace, markers)
    with OPENAI.fake([Reply(text="hello")]) as server:
        start_repl(terminal, isolated_home, workspace, server.base_url)
        screen = terminal.wait_for("press a key")
        assert "5 MCP servers want to start" in screen
        for name in NAMES:
            assert f"{name:<7}  {sys.executable} -c" in screen
        assert "[r] review each of the 5, one card at a time" in screen
        assert "[d] deny all 5 (remembered)" in screen
        assert "MCP server 'alpha'" not in screen  # no server's own card before the answer
        terminal.answer("d")
        terminal.wait_for_prompt()
        terminal.type("/mcp")
        terminal.send("Enter")
        terminal.wait_for("charlie  denied — `levelcode mcp trust charlie` to reconsider")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        assert states(isolated_home, workspace) == {"denied"}
        with another_terminal(terminal, "again") as again:
            start_repl(again, isolated_home, workspace, server.base_url)
            screen = again.wait_for_prompt()
            said = "5 MCP servers you denied here before not started: alpha, bravo, charlie, delta, echo."
            assert said in screen.replace("\n", "")
            assert "press a key" not in screen
            again.send("C-d")
            again.wait_for("[exited 0]")
    assert list(markers.iterdir()) == []


def test_escape_denies_all_and_review_each_shows_every_card_in_turn(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    workspace, markers = tmp_path / "repo", tmp_path / "markers"
    workspace.mkdir()
    many_servers(workspace, markers)
    with OPENAI.fake([]) as server:
        start_repl(terminal, isolated_home, workspace, server.base_url)
        terminal.wait_for("5 MCP servers want to start")
        terminal.answer("Escape")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    assert states(isolated_home, workspace) == {"denied"}
    for name in NAMES:  # as `levelcode mcp trust NAME` does first
        TrustStore(isolated_home / "state" / "trust.json").forget_denial(workspace, name)
    with OPENAI.fake([]) as server, another_terminal(terminal, "review") as review:
        start_repl(review, isolated_home, workspace, server.base_url)
        review.wait_for("5 MCP servers want to start")
        review.answer("r")
        for shown, name in enumerate(NAMES, start=2):  # the list's card, then each server's own
            card = wait_for_cards(review, shown).rpartition("Start an MCP server?")[2]
            assert f"new · MCP server '{name}'" in card
            assert f"arg 3:   {markers / name}" in card
            assert f"not asked again until `levelcode mcp trust {name}`" in card
            review.answer("n")
        review.wait_for_prompt()
        review.send("C-d")
        review.wait_for("[exited 0]")
    assert states(isolated_home, workspace) == {"denied"}
    assert list(markers.iterdir()) == []
    with another_terminal(terminal, "trust") as trust:
        env = cli_env(isolated_home, TERM="xterm-256color")
        trust.start([str(LEVELCODE), "mcp", "trust", "bravo"], env, str(workspace))
        trust.wait_for("new · MCP server 'bravo'")
        trust.answer("n")
        trust.wait_for("It will not ask about this launch again until you run levelcode mcp trust bravo.")
