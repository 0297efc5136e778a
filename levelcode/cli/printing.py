"""How the `levelcode mcp` commands talk: plain lines, each made safe for a terminal, and errors
on stderr that start with `levelcode:` and end with what to do next."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from levelcode.core.errors import ConfigError


def say(*lines: str, err: bool = False) -> None:
    """Print line by line, each made safe for a terminal (a value's own newline stays escaped);
    no lines, nothing printed."""
    if not lines:
        return
    from levelcode.ui.visible import visible  # not before `mcp list` spawns its servers (unicodedata)

    print("\n".join(visible(line) for line in lines), file=sys.stderr if err else sys.stdout)


def fail(message: object, code: int, *more: str) -> int:
    first, *rest = str(message).split("\n")
    say(f"levelcode: {first}", *rest, *more, err=True)
    return code


def workspace_of(args: argparse.Namespace) -> Path:
    """The workspace (`-C DIR`, default the current directory), which must be a directory."""
    workspace = Path(getattr(args, "workspace", None) or ".").expanduser().resolve()
    if not workspace.is_dir():
        raise ConfigError(f"{workspace} is not a directory; pass an existing one with -C DIR")
    return workspace
