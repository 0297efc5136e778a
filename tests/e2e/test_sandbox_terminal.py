"""The one run outside the sandbox, in a real terminal. Load-bearing direction: a command the
sandbox blocked runs outside it only after a card that warns so and offers no "always"; "n"
leaves it blocked. The second corpus: "y" really runs it outside, once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.sandbox import host_folder
from tests.support.terminal import CONFIRM_READY, Terminal

pytestmark = pytest.mark.sandbox


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


def _card(terminal: Terminal, title: str) -> str:
    """The card below the last `title` on the screen, once it takes keys."""
    screen = terminal.wait_for_keys()
    return screen[screen.rindex(title) :]


def test_a_blocked_command_may_run_outside_once_after_a_warning(
    terminal: Terminal, isolated_home: Path, tmp_path: Path, outside: Path
) -> None:
    marker = outside / "marker"
    touch = Reply(tool_calls=(ToolCall("run_command", {"command": f"touch {marker}"}),))
    steps = [touch, Reply(text="First one blocked."), touch, Reply(text="Second one ran outside.")]
    with OPENAI.fake(steps) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        terminal.start(
            [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)], env, str(tmp_path)
        )
        terminal.wait_for("/help for commands")
        for answer, done in (("n", "First one blocked."), ("y", "Second one ran outside.")):
            terminal.type("touch the marker")
            terminal.send("Enter")
            _card(terminal, "Run command")
            terminal.press("y")  # allow the command itself: it runs in the sandbox, which blocks it
            card = _card(terminal, "Run again outside the sandbox")
            assert "Runs OUTSIDE the sandbox" in card
            assert "[a]" not in card
            terminal.press(answer)
            if answer == "y":  # a run outside the sandbox is confirmed with a second key
                terminal.wait_for_keys(CONFIRM_READY)
                terminal.press("C-y", CONFIRM_READY)
            terminal.wait_for(done)
            assert marker.exists() is (answer == "y")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
