"""What the REPL's slash commands, shell lines and turns (slash_commands.py, shell_lines.py,
turns.py) use of the REPL itself (prompt_loop.py): its console and activity line, the session, the
turn Ctrl-C aborts, the `!cmd` outputs waiting for the next message, and the servers' start-up.

prompt_loop.py imports those three modules; they know the REPL only as this face, so no two of the
files import each other. Types only: never runs anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from levelcode.cli.repl.mcp_prompt_parts import McpPromptParts
    from levelcode.cli.start.chat_parts import ChatSession
    from levelcode.cli.start.light_start import LightStart
    from levelcode.core.attachments import Attachment
    from levelcode.ui.activity_line import ActivityLine


class ReplFace(Protocol):
    console: Console
    line: ActivityLine
    light: LightStart
    mcp_parts: McpPromptParts
    turn: asyncio.Future[Any] | None  # what Ctrl-C aborts
    pending: list[Attachment]  # `!cmd` outputs, for the next message

    @property
    def session(self) -> ChatSession: ...

    async def servers_ready(self) -> None: ...

    async def start_servers(self, work: Coroutine[object, object, None]) -> None: ...
