"""The `levelcode` command: argument parsing and dispatch to the surface that does the work.

Start-up cost matters (`levelcode mcp list` is timed): this module imports only the standard
library; each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any, NoReturn

from levelcode import __version__
from levelcode.core.errors import ConfigError

DESCRIPTION = "LevelCode: a terminal AI coding agent that uses tools from MCP servers, safely."
EPILOG = """\
commands:
  levelcode                      start the interactive session (REPL) in the workspace
  levelcode run "PROMPT"         run one task headless and exit (non-zero on failure)
  levelcode mcp ...              see and manage MCP servers (levelcode mcp --help)
  levelcode sandbox -- CMD ...   run CMD in the sandbox, exactly as the agent runs commands

Settings live in settings.json under your config dir (or $LEVELCODE_HOME). A repository can ask
for MCP servers in .levelcode/mcp.json or .mcp.json; they never start until you approve them.
Commands the agent runs are confined by a sandbox (bubblewrap): they write only in the workspace,
--add-dir folders and a private /tmp, cannot read your secret stores, and have no network unless
you pass --allow-network. Where there is no sandbox, every command asks first.
"""


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    """The options that decide where commands may work: shared by the agent and `sandbox`."""
    parser.add_argument(
        "-C", dest="workspace", metavar="DIR", help="workspace directory (default: the current one)"
    )
    parser.add_argument(
        "--add-dir",
        dest="add_dirs",
        metavar="DIR",
        action="append",
        help="let the tools use DIR as well as the workspace (repeatable)",
    )
    parser.add_argument(
        "--allow-network",
        dest="allow_network",
        action="store_true",
        help="let sandboxed commands use the network (off by default)",
    )


def _common_options() -> argparse.ArgumentParser:
    # SUPPRESS defaults let these options appear before or after the subcommand alike.
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    _add_workspace_options(common)
    common.add_argument("--provider", choices=("anthropic", "openai"), help="model provider")
    common.add_argument("--model", help="model name")
    common.add_argument(
        "--base-url", dest="base_url", metavar="URL", help="API base URL (OpenAI-compatible servers)"
    )
    common.add_argument(
        "--autopilot",
        action="store_true",
        help="run commands the safety check calls safe in the sandbox without asking (MCP calls still ask)",
    )
    return common


def _add_sandbox_parser(commands: Any) -> None:
    options = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    _add_workspace_options(options)
    sandbox = commands.add_parser(
        "sandbox",
        parents=[options],
        help="run a command in the sandbox, exactly as the agent would",
        description=(
            "Run CMD ARGS... in the sandbox exactly as the agent runs its commands (same policy, "
            "same environment, bash in the workspace, stdin closed), stream its output and exit "
            "with its status. Shell syntax needs a shell: levelcode sandbox -- bash -c 'make && make test'"
        ),
        usage="levelcode sandbox [--allow-network] [--add-dir DIR] [-C DIR] [-v] -- CMD [ARGS...]",
    )
    sandbox.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the confinement summary even when not on a terminal",
    )
    sandbox.add_argument("argv", nargs="*", metavar="CMD", help="the command and its arguments")


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
    _add_sandbox_parser(commands)
    return parser


def entry() -> NoReturn:
    """The `levelcode` console script (and `python -m levelcode`): `main`, then a quick exit."""
    exit_quickly(main())


def exit_quickly(code: int) -> NoReturn:
    """End the process without Python's own teardown of every module (~40 ms after `mcp list`,
    as long as a server's whole start) once nothing is left for it to do: the exit handlers run,
    the output is flushed. Where another thread still runs, the usual exit waits for it."""
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()  # early servers nobody claimed, the debug log's handler
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that left early: as Python itself reports it
        code = code or 120
    os._exit(code)


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
    if args.command == "sandbox":
        from levelcode.cli.sandbox_command import run_sandbox_command

        return run_sandbox_command(args)
    if args.command == "run":
        from levelcode.cli.headless import run_headless

        return run_headless(args)
    from levelcode.cli.interactive import run_interactive

    return run_interactive(args)
