"""`levelcode mcp …` commands."""

from __future__ import annotations

import argparse
import sys


def run_mcp_command(args: argparse.Namespace) -> int:
    print(f"levelcode: `mcp {args.mcp_command}` is not built yet.", file=sys.stderr)
    return 2
