"""The interactive session."""

from __future__ import annotations

import argparse
import sys


def run_repl(args: argparse.Namespace) -> int:
    print("levelcode: the interactive session is not built yet; see `levelcode --help`.", file=sys.stderr)
    return 2
