"""`/mcp restart NAME`: one MCP server ended (if it runs) and started again — one that failed at
start, crashed, or hangs — through the launch gate as at the session's start, with the REPL's
progress and Ctrl-C; the other servers and the conversation are left alone. Reaches MCP only
through the session and its runtime (mcp/live/runtime.py `restart_server`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from levelcode.mcp.live.overview import Restarted
from levelcode.ui.mcp_words import restarted_words
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from levelcode.cli.repl.face import ReplFace


async def restart_one(repl: ReplFace, name: str) -> None:
    await repl.servers_ready()  # a start still under way ends first
    done: list[Restarted] = []

    async def restart() -> None:
        done.append(await repl.session.restart_server(name))

    await repl.start_servers(restart())  # shows progress; Ctrl-C gives up on it
    for restarted in done:
        running = restarted.summary is not None and restarted.summary.running
        for line in restarted_words(restarted):
            repl.console.print(Text(visible(line), style="green" if running else "yellow"))
