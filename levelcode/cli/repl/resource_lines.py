"""The line saying a resource the conversation uses changed, as the server says so: above the
prompt at once while it waits idle for a line (what is typed stays), otherwise — a turn or a
command under way — before the next prompt. Each resource once until the next message (a resource
that changes every second must not flood the terminal); the model is told with that message
(agent/loop.py), whatever was shown here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from levelcode.ui.visible import visible


class ChangedResources:
    def __init__(self, console: Console, prompt_idle: Callable[[], bool]) -> None:
        self.console = console
        self.prompt_idle = prompt_idle
        self.pending: list[str] = []
        self.said: set[str] = set()  # since the last message
        self._showing: set[asyncio.Task[None]] = set()

    def heard(self, server: str, uri: str) -> None:
        from levelcode.agent.resource_notes import resource_changed_line  # off the prompt's first path

        line = resource_changed_line(server, uri)
        if line in self.said or line in self.pending:
            return
        self.pending.append(line)
        if self.prompt_idle():
            task = asyncio.ensure_future(self._above_the_prompt())
            self._showing.add(task)
            task.add_done_callback(self._showing.discard)

    async def _above_the_prompt(self) -> None:
        from prompt_toolkit.application import run_in_terminal

        if self.pending and self.prompt_idle():  # it may have been said, or the prompt gone, since
            await run_in_terminal(self.say_pending)

    def say_pending(self) -> None:
        """Print the lines not shown yet (no prompt is up, or it steps aside for them)."""
        lines, self.pending = self.pending, []
        for line in lines:
            self.console.print(Text(visible(line), style="yellow"), soft_wrap=True)
        self.said.update(lines)

    def message_sent(self) -> None:
        self.said.clear()
