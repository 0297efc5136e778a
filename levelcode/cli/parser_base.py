"""The argument parser class every `levelcode` command is built on: argparse's own, with a help
formatter that learns the terminal's width without `shutil`, and arguments added only when a
command is the one chosen.

argparse makes a help formatter for every argument it adds (to check the metavar), and each asks
`shutil` for the terminal's size: importing `shutil` (it brings bz2, lzma and zlib) cost ~5 ms
of every `levelcode mcp list`, before its servers could be spawned. The width is what
`shutil.get_terminal_size` would say.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any


def terminal_columns() -> int:
    """`$COLUMNS` where it is a positive number, else the terminal's width, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        return (os.get_terminal_size(stdout.fileno()).columns or 80) if stdout is not None else 80
    except (AttributeError, ValueError, OSError):  # stdout closed, replaced, or not a terminal
        return 80


class HelpFormatter(argparse.HelpFormatter):
    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        width = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class RawDescriptionFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs kept as written (examples, tables)."""


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose help formatter is `HelpFormatter` unless told otherwise, and whose
    arguments may be added late: `fill` runs the first time the parser parses or shows its help,
    so a command's parser costs nothing until that command is the one typed. The parsers of its
    subcommands are CommandParsers too (argparse makes them of the parent's class)."""

    def __init__(
        self,
        *,
        fill: Callable[[CommandParser], None] | None = None,
        formatter_class: type[argparse.HelpFormatter] = HelpFormatter,
        **kwargs: Any,
    ) -> None:
        super().__init__(formatter_class=formatter_class, **kwargs)
        self._fill = fill

    def filled(self) -> CommandParser:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill(self)
        return self

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        return super(CommandParser, self.filled()).parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        return super(CommandParser, self.filled()).format_usage()

    def format_help(self) -> str:
        return super(CommandParser, self.filled()).format_help()
