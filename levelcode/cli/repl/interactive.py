"""`levelcode` (the interactive session), entered lightly: the terminal check, the light start
(settings, provider key, the user's own servers spawned — as many as leave this process a core;
the rest follow once the prompt is drawn; a saved session to go on with is found, or picked, before
that), then the REPL (cli/repl/prompt_loop.py), which draws its prompt
before it loads the rest of LevelCode. For the whole session the terminal keeps what is typed
ahead through a Ctrl-C, and a Ctrl-D typed while LevelCode works stays a Ctrl-D (ui/typeahead.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from levelcode.cli.start.light_start import light_start, refuse
from levelcode.cli.start.resumed_session import NothingChosen
from levelcode.core.errors import ConfigError, ProviderAuthError, SessionUnreadable
from levelcode.mcp.live.early_start import cores_for_servers
from levelcode.ui.typeahead import typed_keys_kept

if TYPE_CHECKING:
    from levelcode.agent.session_store import SessionSummary


def run_interactive(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print(
            'levelcode: the interactive session needs a terminal; for scripts use: levelcode -p "PROMPT" '
            '(or levelcode run "PROMPT")',
            file=sys.stderr,
        )
        return 2
    with typed_keys_kept(sys.stdin.fileno()):
        try:
            light = light_start(args, spawn_at_most=cores_for_servers(), pick=_picker)
        except (ConfigError, ProviderAuthError, SessionUnreadable) as exc:
            code = refuse(exc)
            return 0 if isinstance(exc, NothingChosen) else code
        from levelcode.cli.aio import run_command
        from levelcode.cli.repl.prompt_loop import Repl

        repl = Repl(light)
        code = run_command(repl.main, repl.close, interrupt=repl.interrupt)
    session = repl.opened_session
    if session is not None and session.recorder.id is not None:
        from levelcode.ui.session_view import saved_line

        print(saved_line(session.recorder.id))
    return code


def _picker(summaries: Sequence[SessionSummary], problems: Sequence[str]) -> str | None:
    from levelcode.ui.session_picker import pick_session

    return pick_session(summaries, problems)
