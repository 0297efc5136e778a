"""The words typed for `mcp add`: a command line typed as one string split into command and
arguments, and what a URL, an env entry and a header look like among the words.

Pure. Shell-like quoting only: quotes and backslashes are honoured; nothing is expanded, globbed
or run, because no shell ever sees the line.
"""

from __future__ import annotations

import re
import shlex

from levelcode.core.errors import ConfigError

PURE = True


def split_command_line(line: str) -> list[str]:
    try:
        words = shlex.split(line, comments=False, posix=True)
    except ValueError as exc:
        raise ConfigError(f"cannot split the command line {line!r}: {exc} (check the quotes)") from exc
    if not words:
        raise ConfigError("the command line is empty")
    return words


def is_url(word: str) -> bool:
    return word.lower().startswith(("http://", "https://"))


_ENV_ENTRY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=", re.ASCII)
_HEADER_ENTRY = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*:", re.ASCII)


def is_env_entry(word: str) -> bool:
    """`KEY=VALUE`: what one more value after `-e` looks like."""
    return _ENV_ENTRY.match(word) is not None


def is_header_entry(word: str) -> bool:
    """`Name: value` (a URL is no header, though `https:` reads like one)."""
    return _HEADER_ENTRY.match(word) is not None and not is_url(word)
