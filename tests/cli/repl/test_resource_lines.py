"""The REPL's "MCP resource changed" lines, without a terminal: shown at once while the prompt is
idle, kept for the next prompt otherwise, and each resource said once until the next message (a
resource that changes every second does not flood the screen). The idle prompt itself: the tmux
test tests/e2e/test_resource_change_terminal.py."""

from __future__ import annotations

import io

from rich.console import Console

from levelcode.cli.repl.resource_lines import ChangedResources

NOTE = "MCP resource changed: @sdk:test://note (the model is told with your next message)"


def test_lines_wait_for_the_prompt_and_each_resource_is_said_once_per_message() -> None:
    out = io.StringIO()
    lines = ChangedResources(Console(file=out, width=200), prompt_idle=lambda: False)  # a turn runs
    lines.heard("sdk", "test://note")
    lines.heard("sdk", "test://note")
    assert out.getvalue() == ""
    lines.say_pending()  # the next prompt
    assert out.getvalue().splitlines() == [NOTE]
    lines.heard("sdk", "test://note")  # again before any message: said already
    lines.say_pending()
    assert out.getvalue().splitlines() == [NOTE]
    lines.message_sent()
    lines.heard("sdk", "test://note")
    lines.heard("fs", "file:///x\x1b[2J")  # the server's text, escaped
    lines.say_pending()
    assert out.getvalue().splitlines()[1:] == [
        NOTE,
        "MCP resource changed: @fs:file:///x\\x1b[2J (the model is told with your next message)",
    ]
