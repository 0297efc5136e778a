"""Signs of life in the REPL, in a real terminal (tmux): while MCP servers are still starting (their
names, the time, the key that skips them), while the model thinks before its first token (the
time, the key that interrupts), and while a real slow MCP tool runs (its name, the time, its
progress); the line goes when the answer comes, leaves the answer whole, and is off the screen
while a card is up. Load-bearing direction: each of those waits shows the live line, and none of
it is left on the screen after."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.fakes.scripted_server import RecordedRequest, Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.everything import everything_entry
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal

# SGR sequences that set a colour (foreground, background, bright, 256 and true colour)
COLOUR = re.compile(r"\x1b\[(?:[0-9]*;)*(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9]*)*m")
LONG_CALL = ToolCall("everything__trigger-long-running-operation", {"duration": 6, "steps": 6})


def gated(release: threading.Event, reply: Reply) -> Callable[[RecordedRequest], Reply]:
    """A step that answers only once the test releases it: the model thinking for as long as the
    test needs to see the line."""

    def step(_request: RecordedRequest) -> Reply:
        release.wait(60)
        return reply

    return step


def wait_for_live_line(terminal: Terminal, pattern: str, *, seconds: int = 2, within: float = 40) -> str:
    """The live line matching `pattern` (whose `(\\d+)s` group is the time shown) once it shows
    at least `seconds`: the clock went on from 0 while the screen was watched."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for line in terminal.visible_screen().splitlines():
            found = re.search(pattern, line)
            if found and int(found.group(1)) >= seconds:
                return line
        time.sleep(0.05)
    raise AssertionError(f"no live line {pattern!r}; the terminal shows:\n{terminal.screen()}")


def test_the_live_line_while_servers_start_the_model_thinks_and_a_tool_runs(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    release = threading.Event()
    steps = [
        gated(release, Reply(text="Hello after the wait.")),
        Reply(tool_calls=(LONG_CALL,)),
        Reply(text="long one done"),
        Reply(tool_calls=(ToolCall("run_command", {"command": "echo from-the-card"}),)),
        Reply(text="ran it"),
    ]
    stuck = {"command": sys.executable, "args": [str(FAULT_SERVER), "--hang-at-start"], "startupTimeout": 120}
    with everything_entry("stdio") as everything, OPENAI.fake(steps) as server:
        servers = {"everything": everything, "stuck": stuck}
        write_settings(isolated_home, {"mcpServers": servers, "mcpToolPolicy": {"everything__*": "allow"}})
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)]
        terminal.start(argv, provider_env(isolated_home, "openai", TERM="xterm-256color"), cwd=str(tmp_path))
        terminal.wait_for_prompt(within=40)
        terminal.type("hi")
        terminal.send("Enter")
        wait_for_live_line(terminal, r"^. waiting for MCP servers: stuck · (\d+)s · Ctrl-C to skip$")
        terminal.send("C-c")
        terminal.wait_for("MCP start-up interrupted")
        wait_for_live_line(terminal, r"^. waiting for the model · (\d+)s · Ctrl-C to interrupt$")
        release.set()
        terminal.wait_for("Hello after the wait.")
        terminal.wait_for_prompt()
        shown = terminal.visible_screen()
        assert "Hello after the wait." in shown.splitlines()
        assert "Ctrl-C to" not in shown
        assert "waiting for" not in shown

        terminal.type("go")
        terminal.send("Enter")
        long_call = (
            r"^. everything__trigger-long-running-operation · (\d+)s · \d/6 \(\d+%\).* · Ctrl-C to interrupt$"
        )
        wait_for_live_line(terminal, long_call)  # the server's progress on the same line
        terminal.wait_for("long one done")
        terminal.wait_for_prompt()
        assert "Ctrl-C to" not in terminal.visible_screen()

        terminal.type("run it")
        terminal.send("Enter")
        card = terminal.wait_for_keys()
        assert "echo from-the-card" in card
        assert "Ctrl-C to interrupt" not in terminal.visible_screen()  # the card took the line off
        terminal.press("y")
        terminal.wait_for("ran it")
        terminal.wait_for_prompt()
        assert "Ctrl-C to" not in terminal.visible_screen()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")


def test_no_color_keeps_the_line_and_drops_every_colour(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    release = threading.Event()
    steps = [
        gated(release, Reply(tool_calls=(ToolCall("run_command", {"command": "echo plain"}),))),
        Reply(text="Plain answer."),
    ]
    written = tmp_path.parent / f"{tmp_path.name}-terminal.bytes"
    with OPENAI.fake(steps) as server:
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)]
        env = provider_env(isolated_home, "openai", TERM="xterm-256color", NO_COLOR="1")
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.record(str(written))
        terminal.wait_for_prompt(within=40)
        terminal.type("hi")
        terminal.send("Enter")
        wait_for_live_line(terminal, r"^. waiting for the model · (\d+)s · Ctrl-C to interrupt$", seconds=1)
        release.set()
        terminal.answer("y")
        terminal.wait_for("Plain answer.")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    raw = written.read_text(encoding="utf-8", errors="replace")
    assert "waiting for the model · " in raw
    assert "Run a command?" in raw
    assert not COLOUR.search(raw), COLOUR.findall(raw)[:5]
