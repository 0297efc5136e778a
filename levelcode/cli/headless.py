"""`levelcode run`: one task, no questions asked of anyone."""

from __future__ import annotations

import argparse
import sys


def run_headless(args: argparse.Namespace) -> int:
    print("levelcode: `run` is not built yet; see `levelcode --help`.", file=sys.stderr)
    return 2
