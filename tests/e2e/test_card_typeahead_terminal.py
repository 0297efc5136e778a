"""Type-ahead and approval cards in a real terminal (tmux). Load-bearing direction: keys pressed
before a card is drawn, or while it arms, never answer it — a user typing `yes fix the tests` as
LevelCode starts approves no repository server, text typed while the model thinks answers no call
card, a Ctrl-D or Escape typed ahead of a launch card denies nothing (that denial would be
remembered), keys typed as `levelcode mcp trust` starts neither approve nor deny — and a stray
word never completes the confirmation that a remembered answer takes; nothing is recorded (trust
store, settings). The second corpus: a key pressed once the card is armed
answers it, and a deliberate answer with its Ctrl-Y confirmation is recorded. Typed text is never
lost either: it comes back in the next prompt, through cards, `/new` and a Ctrl-C."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

from levelcode.mcp.launch.trust_store import TrustStore
from tests.e2e.test_mcp_cards_terminal import fault_entry, repo_server, slow_user_server, start_repl
from tests.fakes.scripted_server import RecordedRequest, Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, run_cli, write_settings
from tests.support.processes import read_pids, survivors
from tests.support.terminal import CONFIRM_READY, Terminal

ARMING = "… a moment: keys typed now are not taken as answers"


def trust_store(home: Path) -> TrustStore:
    return TrustStore(home / "state" / "trust.json")


def leave(terminal: Terminal) -> None:
    """Clear whatever the prompt holds, and leave."""
    terminal.wait_for_prompt(typed=None)
    terminal.send("C-u", "C-d")
    terminal.wait_for("[exited 0]")


def thinking_model(asked: threading.Event, answer: threading.Event, reply: Reply) -> Callable[..., Reply]:
    """A model step that holds its answer until the test lets it go: the model "thinks"."""

    def step(_request: RecordedRequest) -> Reply:
        asked.set()
        answer.wait(30)
        return reply

    return step


def test_typing_before_the_launch_card_approves_nothing_and_comes_back_in_the_prompt(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    repo_server(tmp_path, pid_file)
    with OPENAI.fake([]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.type("yes fix the tests")  # at once: LevelCode is still starting, no card yet
        try:
            screen = terminal.wait_for_keys()
        finally:  # what matters first, when the type-ahead answered the card
            assert trust_store(isolated_home).approved_servers(tmp_path) == {}, terminal.screen()
        assert "→ " not in screen  # nothing answered the card
        terminal.press("n")
        terminal.wait_for("keys typed before the card was ready were not taken as answers")
        terminal.wait_for_prompt(typed="yes fix the tests")
        leave(terminal)
    assert trust_store(isolated_home).approved_servers(tmp_path) == {}
    assert read_pids(pid_file) == []


def test_typing_while_the_model_thinks_answers_no_call_card(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file, marker = tmp_path / "pids", tmp_path / "marker"
    settings = write_settings(isolated_home, {"mcpServers": {"fault": fault_entry(pid_file)}})
    written = settings.read_text()
    asked, answer = threading.Event(), threading.Event()
    call = Reply(tool_calls=(ToolCall("fault__touch_marker", {"path": str(marker)}),))
    with OPENAI.fake([thinking_model(asked, answer, call), Reply(text="ok then")]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        terminal.type("touch it")
        terminal.send("Enter")
        assert asked.wait(20)
        terminal.type("a note for later")  # the next message, typed while the model thinks
        answer.set()
        try:
            screen = terminal.wait_for_keys()
        finally:  # what matters first, when the type-ahead answered the card
            assert settings.read_text() == written, terminal.screen()
        assert "→ " not in screen.split("MCP call · fault · touch_marker")[-1]
        terminal.press("n")
        terminal.wait_for("ok then")
        terminal.wait_for_prompt(typed="a note for later")
        leave(terminal)
    assert settings.read_text() == written
    assert not marker.exists()
    assert survivors(read_pids(pid_file)) == []


def test_a_key_while_the_card_arms_is_ignored_and_one_after_it_answers(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file, marker = tmp_path / "pids", tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"fault": fault_entry(pid_file)}})
    steps = [Reply(tool_calls=(ToolCall("fault__touch_marker", {"path": str(marker)}),)), Reply(text="done")]
    with OPENAI.fake(steps) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        terminal.type("touch it")
        terminal.send("Enter")
        terminal.wait_for(ARMING)  # drawn, not armed yet
        terminal.send("y")
        screen = terminal.wait_for_keys()
        assert "→ allow once" not in screen
        assert not marker.exists()
        terminal.press("y")
        terminal.wait_for("→ allow once")
        terminal.wait_for("done")
        assert marker.exists()
        leave(terminal)


def test_a_stray_word_never_confirms_a_launch_approval(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    repo_server(tmp_path, pid_file)
    with OPENAI.fake([]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for_keys()
        terminal.type("yes fix the tests\r")  # typed into the armed card: `y` opens the confirmation
        terminal.wait_for_keys(CONFIRM_READY)
        terminal.type("sure, why not?\r")  # a word on the confirmation goes back to the card
        screen = terminal.wait_for_keys()
        assert trust_store(isolated_home).approved_servers(tmp_path) == {}
        assert "→ " not in screen
        terminal.press("n")
        terminal.wait_for("/help for commands")
        leave(terminal)
    assert trust_store(isolated_home).approved_servers(tmp_path) == {}
    assert read_pids(pid_file) == []


def test_always_takes_ctrl_y_and_a_stray_word_does_not_record_it(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file, marker = tmp_path / "pids", tmp_path / "marker"
    settings = write_settings(isolated_home, {"mcpServers": {"fault": fault_entry(pid_file)}})
    written = settings.read_text()
    call = Reply(tool_calls=(ToolCall("fault__touch_marker", {"path": str(marker)}),))
    with OPENAI.fake([call, Reply(text="first"), call, Reply(text="second")]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        terminal.type("touch it")
        terminal.send("Enter")
        terminal.wait_for_keys()
        terminal.type("always do that")
        terminal.wait_for_keys(CONFIRM_READY)
        terminal.type("ok")  # back to the card
        terminal.wait_for_keys()
        assert settings.read_text() == written
        terminal.press("n")
        terminal.wait_for("first")
        assert not marker.exists()
        terminal.wait_for_prompt(typed=None)  # holding what was typed into the card: cleared
        terminal.send("C-u")
        terminal.type("again")
        terminal.send("Enter")
        terminal.answer("a", confirm=True)  # the deliberate way: `a`, then Ctrl-Y
        terminal.wait_for("second")
        leave(terminal)
    assert marker.exists()
    recorded = json.loads(settings.read_text())["mcpToolPolicy"]
    assert recorded["fault__touch_marker"]["decision"] == "allow"


def test_text_typed_during_new_is_kept_and_answers_no_card(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    repo_server(tmp_path, pid_file, approved_in=isolated_home)
    with OPENAI.fake([]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for("mcp · fault (")
        terminal.wait_for_prompt()
        run_cli(["-C", str(tmp_path), "mcp", "revoke", "fault"], isolated_home)
        terminal.type("/new")
        terminal.send("Enter")
        terminal.type("tell me more")  # typed at once: the card /new brings is not drawn yet
        screen = terminal.wait_for_keys()
        assert "new · MCP server 'fault'" in screen
        terminal.press("n")
        terminal.wait_for("New chat.")
        terminal.wait_for_prompt(typed="tell me more")
        leave(terminal)
    assert trust_store(isolated_home).approved_servers(tmp_path) == {}


def test_text_typed_during_slow_starts_survives_the_ctrl_c_that_skips_them(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    slow = fault_entry(pid_file)
    slow["args"] = [*slow["args"], "--slow-start", "60"]
    write_settings(isolated_home, {"mcpServers": {"slow": slow}})
    with OPENAI.fake([]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for_prompt()
        terminal.type("/new")
        terminal.send("Enter")
        terminal.wait_for("waiting for MCP servers: slow · ")  # the first start
        terminal.type("typed while it starts, ")
        terminal.send("C-c")  # skip it: the terminal would throw away what was typed
        terminal.wait_for("starting MCP servers: slow · ")  # /new starts it again
        terminal.type("and while it restarts")
        terminal.send("C-c")
        terminal.wait_for("New chat.")
        terminal.wait_for_prompt(typed="typed while it starts, and while it restarts")
        leave(terminal)
    assert survivors(read_pids(pid_file)) == []


def test_ctrl_d_typed_while_the_model_thinks_leaves_at_the_next_prompt(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    asked, answer = threading.Event(), threading.Event()
    with OPENAI.fake([thinking_model(asked, answer, Reply(text="the answer"))]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for_prompt()
        terminal.type("think about it")
        terminal.send("Enter")
        assert asked.wait(20)
        terminal.send("C-d")  # no prompt is reading: the terminal holds the key
        answer.set()
        terminal.wait_for("the answer")
        terminal.wait_for("[exited 0]")


def test_ctrl_d_and_escape_typed_ahead_of_a_launch_card_deny_nothing(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    slow_user_server(isolated_home, pid_file)
    repo_server(tmp_path, pid_file, approved_in=isolated_home)
    with OPENAI.fake([]) as server:
        start_repl(terminal, isolated_home, tmp_path, server.base_url)
        terminal.wait_for_prompt()  # the gate admitted `fault` before the prompt came up
        run_cli(["-C", str(tmp_path), "mcp", "revoke", "fault"], isolated_home)
        terminal.type("/new")
        terminal.send("Enter")
        terminal.wait_for("waiting for MCP servers: slow · ")  # nothing reads keys; the card comes next
        terminal.send("C-d", "Escape")  # as a Ctrl-D, not an end of line: the session turned that off
        terminal.send("C-c")  # skip the slow start: /new goes on to the launch gate
        try:
            screen = terminal.wait_for_keys()
        finally:  # what matters first, when the type-ahead answered the card
            assert trust_store(isolated_home).denial(tmp_path, "fault") is None, terminal.screen()
        assert "new · MCP server 'fault'" in screen
        assert "→ " not in screen.split("/new")[-1]
        terminal.answer("y", confirm=True)
        terminal.wait_for("→ approve")
        terminal.wait_for("starting MCP servers: slow · ")
        terminal.send("C-c")
        terminal.wait_for("New chat.")
        leave(terminal)
    assert "fault" in trust_store(isolated_home).approved_servers(tmp_path)
    assert trust_store(isolated_home).denial(tmp_path, "fault") is None


def test_keys_typed_as_mcp_trust_starts_approve_nothing_and_deny_nothing(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    repo_server(tmp_path, tmp_path / "pids")
    env = cli_env(isolated_home, TERM="xterm-256color")
    terminal.start([str(LEVELCODE), "mcp", "trust", "fault"], env, cwd=str(tmp_path))
    terminal.type("y")  # at once: the card is not drawn yet. On it, `y` and Ctrl-Y approve unconfined
    terminal.send("C-y", "Escape", "Enter")
    try:
        screen = terminal.wait_for_keys()
    finally:  # what matters first, when the type-ahead answered the card
        store = trust_store(isolated_home)
        assert store.approved_servers(tmp_path) == {}, terminal.screen()
        assert store.denial(tmp_path, "fault") is None, terminal.screen()
    assert "confirm: " not in screen
    terminal.press("n")
    terminal.wait_for("Not approved: LevelCode will not start 'fault'")
    terminal.wait_for("[exited 1]")
