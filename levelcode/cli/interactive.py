"""`levelcode` (the interactive session), entered lightly: the terminal check, the light start
(settings, provider key, MCP configuration), and the user's own servers begun before the REPL's
terminal UI (rich, prompt_toolkit) and the agent are imported, so they boot meanwhile.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from levelcode.cli.session_start import prepare_session, refuse
from levelcode.core.errors import ConfigError, ProviderAuthError

if TYPE_CHECKING:
    from levelcode.cli.repl import Repl


def run_interactive(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print(
            'levelcode: the interactive session needs a terminal; for scripts use: levelcode run "PROMPT"',
            file=sys.stderr,
        )
        return 2
    try:
        start = prepare_session(args)
    except (ConfigError, ProviderAuthError) as exc:
        return refuse(exc)
    from levelcode.cli.aio import run_command

    opened: list[Repl] = []

    async def main() -> int:
        await start.mcp.begin_trusted()
        from levelcode.cli.repl import open_repl

        opened.append(open_repl(start))
        return await opened[0].main()

    def interrupt() -> bool:
        return opened[0].interrupt() if opened else False

    async def cleanup() -> None:
        await (opened[0].session.close() if opened else start.mcp.close())

    return run_command(main, cleanup, interrupt=interrupt)
