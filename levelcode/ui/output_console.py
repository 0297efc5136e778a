"""The rich console a command prints its output with: on a closed pipe (`| head -1`) it raises
BrokenPipeError, which the console script turns into a quiet end with the status a shell expects
(cli/entry.py), where rich's own reaction is to exit with status 1 from wherever it was."""

from __future__ import annotations

from rich.console import Console


class OutputConsole(Console):
    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more is rendered to a reader that left
        raise BrokenPipeError
