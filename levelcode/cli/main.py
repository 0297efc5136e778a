"""The `levelcode` command: argument parsing and dispatch to the surface that does the work.

Start-up cost matters (`levelcode mcp list` is timed): this module imports only the standard
library; each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from levelcode import __version__
from levelcode.errors import ConfigError

DESCRIPTION = "LevelCode: a terminal AI coding agent that uses tools from MCP servers, safely."
EPILOG = """\
commands:
  levelcode                      start the interactive session (REPL) in the workspace
  levelcode run "PROMPT"         run one task headless and exit (non-zero on failure)
  levelcode mcp ...              see and manage MCP servers (levelcode mcp --help)

Settings live in settings.json under your config dir (or $LEVELCODE_HOME). A repository can ask
for MCP servers in .levelcode/mcp.json or .mcp.json; they never start until you approve them.
"""


def _common_options() -> argparse.ArgumentParser:
    # SUPPRESS defaults let these options appear before or after the subcommand alike.
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument(
        "-C", dest="workspace", metavar="DIR", help="workspace directory (default: the current one)"
    )
    common.add_argument("--provider", choices=("anthropic", "openai"), help="model provider")
    common.add_argument("--model", help="model name")
    common.add_argument(
        "--base-url", dest="base_url", metavar="URL", help="API base URL (OpenAI-compatible servers)"
    )
    common.add_argument(
        "--add-dir",
        dest="add_dirs",
        metavar="DIR",
        action="append",
        help="let the tools use DIR as well as the workspace (repeatable)",
    )
    common.add_argument(
        "--autopilot",
        action="store_true",
        help="run commands the safety classifier calls safe without asking (MCP calls still ask)",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options()
    parser = argparse.ArgumentParser(
        prog="levelcode",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"levelcode {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run", parents=[common], help="run one task headless", description="Run one task headless."
    )
    run.add_argument("prompt", help="what to do")
    run.add_argument("--json", action="store_true", help="print one JSON event per line")
    from levelcode.cli.mcp_parser import add_mcp_parser

    add_mcp_parser(commands, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _dispatch(args)
    except ConfigError as exc:  # a request that cannot be met: say so, no traceback
        from levelcode.ui.visible import visible_block

        print(f"levelcode: {visible_block(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "mcp":
        from levelcode.cli.mcp_commands import run_mcp_command

        return run_mcp_command(args)
    if args.command == "run":
        from levelcode.cli.headless import run_headless

        return run_headless(args)
    from levelcode.cli.repl import run_repl

    return run_repl(args)
