"""Splitting a command line typed as one string (for `mcp add`) into command and arguments.

Pure. Shell-like quoting only: quotes and backslashes are honoured; nothing is expanded, globbed
or run, because no shell ever sees the line.
"""

from __future__ import annotations

import shlex

from levelcode.core.errors import ConfigError


def split_command_line(line: str) -> list[str]:
    try:
        words = shlex.split(line, comments=False, posix=True)
    except ValueError as exc:
        raise ConfigError(f"cannot split the command line {line!r}: {exc} (check the quotes)") from exc
    if not words:
        raise ConfigError("the command line is empty")
    return words
