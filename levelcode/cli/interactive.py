"""`levelcode` (the interactive session), entered lightly: the terminal check, the light start
(settings, provider key, the user's own servers spawned — as many as leave this process a core;
the rest follow once the prompt is drawn), then the REPL (cli/repl.py), which draws its prompt
before it loads the rest of LevelCode. For the whole session the terminal keeps what is typed
ahead through a Ctrl-C, and a Ctrl-D typed while LevelCode works stays a Ctrl-D (ui/typeahead.py).
"""

from __future__ import annotations

import argparse
import sys

from levelcode.cli.session_start import light_start, refuse
from levelcode.core.errors import ConfigError, ProviderAuthError
from levelcode.mcp.early_start import cores_for_servers
from levelcode.ui.typeahead import typed_keys_kept


def run_interactive(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print(
            'levelcode: the interactive session needs a terminal; for scripts use: levelcode run "PROMPT"',
            file=sys.stderr,
        )
        return 2
    with typed_keys_kept(sys.stdin.fileno()):
        try:
            light = light_start(args, spawn_at_most=cores_for_servers())
        except (ConfigError, ProviderAuthError) as exc:
            return refuse(exc)
        from levelcode.cli.aio import run_command
        from levelcode.cli.repl import Repl

        repl = Repl(light)
        return run_command(repl.main, repl.close, interrupt=repl.interrupt)
