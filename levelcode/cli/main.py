"""The `levelcode` command: argument parsing and dispatch to the surface that does the work.

Start-up cost matters (`levelcode mcp list` is timed): this module imports little beyond the
standard library, builds a command's arguments only when it is the one typed (parser_base.py),
and each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
from collections.abc import Sequence

from levelcode import __version__
from levelcode.cli.parser_base import CommandParser, RawDescriptionFormatter
from levelcode.core.errors import ConfigError

USAGE = """\
levelcode [OPTIONS] [-p [--output-format FORMAT]] [PROMPT]
       levelcode [OPTIONS] COMMAND ...  (run, mcp, sandbox; levelcode COMMAND --help)"""
DESCRIPTION = "LevelCode: a terminal AI coding agent that uses tools from MCP servers, safely."
EPILOG = """\
commands:
  levelcode                      start the interactive session (REPL) in the workspace
  levelcode "PROMPT"             start it with PROMPT as the first message
  levelcode -- "run the tests"   the same for a prompt whose first word is a command's name
                                 (run, mcp, sandbox): after --, every word is the prompt
  levelcode -p "PROMPT"          run one task headless, print the answer, exit (as levelcode run)
  levelcode -p --output-format json "PROMPT"   one JSON object at the end: result, session_id,
                                 total_cost_usd, num_turns, is_error (stream-json: a line per event)
  levelcode -c / --continue      go on with the last session in this workspace
  levelcode -r / --resume [ID]   pick a session of this workspace to go on with (or give its ID)
  levelcode run "PROMPT"         run one task headless and exit (non-zero on failure)
  levelcode run -c "PROMPT"      a headless follow-up in the last session of this workspace
  levelcode run - < task.md      the same, the prompt read from stdin (also when piped in)
  levelcode mcp ...              see and manage MCP servers (levelcode mcp --help)
  levelcode sandbox -- CMD ...   run CMD in the sandbox, exactly as the agent runs commands

Every session is saved (0600, under the state dir) as it goes, per workspace; the newest 50 are kept.
Settings live in settings.json under your config dir (or $LEVELCODE_HOME). A repository can ask
for MCP servers in .levelcode/mcp.json or .mcp.json; they never start until you approve them.
Commands the agent runs are confined by a sandbox (bubblewrap): they write only in the workspace,
--add-dir folders and a private /tmp, cannot read your secret stores, and have no network unless
you pass --allow-host HOST (that host, through a filter) or --allow-network (all of it). Where
there is no sandbox, every command asks first.
"""


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    """The options that decide where commands may work: shared by the agent and `sandbox`.
    Like every option taken before or after a command's name, their defaults are SUPPRESS, so
    one typed before the name is not reset by the command's own parser."""
    parser.add_argument(
        "-C",
        dest="workspace",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="workspace directory (default: the current one)",
    )
    parser.add_argument(
        "--add-dir",
        dest="add_dirs",
        metavar="DIR",
        action="append",
        default=argparse.SUPPRESS,
        help="let the tools use DIR as well as the workspace (repeatable)",
    )
    parser.add_argument(
        "--allow-network",
        dest="allow_network",
        action="store_true",
        default=argparse.SUPPRESS,
        help="let sandboxed commands use the network (off by default)",
    )
    parser.add_argument(
        "--allow-host",
        dest="allow_hosts",
        metavar="HOST",
        action="append",
        type=_host_entry,
        default=argparse.SUPPRESS,
        help="let sandboxed commands reach HOST (name, name:port or *.domain) through the egress "
        "filter, and nothing else (repeatable)",
    )


def _host_entry(text: str) -> str:
    """An --allow-host value as entries are written (policy/network_hosts.py); a usage error else."""
    from levelcode.policy.network_hosts import parse_host_entry

    try:
        return parse_host_entry(text).text()
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """The options of the agent, taken at every level of the command line."""
    _add_workspace_options(parser)
    common = functools.partial(parser.add_argument, default=argparse.SUPPRESS)
    common("--provider", choices=("anthropic", "openai"), help="model provider")
    common("--model", help="model name")
    common("--base-url", dest="base_url", metavar="URL", help="API base URL (OpenAI-compatible servers)")
    common(
        "--profile",
        metavar="NAME",
        help='start only the MCP servers of the profile NAME ("profiles" in your settings)',
    )
    common(
        "--autopilot",
        action="store_true",
        help="run commands the safety check calls safe in the sandbox without asking (MCP calls still ask)",
    )


def add_session_options(parser: argparse.ArgumentParser, *, headless: bool) -> None:
    """Which saved session to go on with (cli/start/resumed_session.py): the REPL's `--resume` alone
    opens a picker; `run` needs the ID."""
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        default=argparse.SUPPRESS,
        help="go on with the last session in this workspace",
    )
    if headless:
        chosen.add_argument(
            "-r", "--resume", metavar="ID", default=argparse.SUPPRESS, help="go on with the session ID"
        )
        return
    chosen.add_argument(
        "-r",
        "--resume",
        metavar="ID",
        nargs="?",
        const="",
        default=argparse.SUPPRESS,
        help="pick a session of this workspace to go on with (or give its ID)",
    )


def _fill_run(run: CommandParser) -> None:
    add_common_options(run)
    add_session_options(run, headless=True)
    run.add_argument(
        "prompt",
        nargs="?",
        metavar="PROMPT",
        help='what to do; "-" reads it from stdin, and so does no PROMPT when stdin is not a terminal',
    )
    add_output_format(run)
    run.add_argument(
        "--json", action="store_true", help="print one JSON event per line (--output-format stream-json)"
    )


OUTPUT_FORMATS = ("text", "json", "stream-json")


def add_output_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output-format",
        dest="output_format",
        choices=OUTPUT_FORMATS,
        default=argparse.SUPPRESS,
        help="headless output: text (the answer, default), json (one object at the end), "
        "stream-json (one JSON event per line as it goes, the same object last)",
    )


def _add_print_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run PROMPT headless and exit, as levelcode run (PROMPT, or stdin when it is - or missing)",
    )
    add_output_format(parser)


def _fill_sandbox(sandbox: CommandParser) -> None:
    _add_workspace_options(sandbox)
    sandbox.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the confinement summary even when not on a terminal",
    )
    sandbox.add_argument("argv", nargs="*", metavar="CMD", help="the command and its arguments")


def _fill_mcp(mcp: CommandParser) -> None:
    from levelcode.cli.mcp.parser import fill_mcp_parser

    fill_mcp_parser(mcp, add_common_options)


def build_parser() -> argparse.ArgumentParser:
    """Every command's parser; each one's arguments are added only when it is the one chosen
    (or its help is asked for), so that `levelcode mcp list` spends no time on the other ~20."""
    # No abbreviations where a command's name follows: such a parser reads every word of the line,
    # and `mcp revoke --all` would be an ambiguous `--allow-network`/`--allow-host` to it.
    parser = CommandParser(
        prog="levelcode",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=RawDescriptionFormatter,
        allow_abbrev=False,
        usage=USAGE,
    )
    add_common_options(parser)
    add_session_options(parser, headless=False)
    _add_print_options(parser)
    parser.add_argument("--version", action="version", version=f"levelcode {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", prog="levelcode")
    commands.add_parser(
        "run",
        fill=_fill_run,
        help="run one task headless",
        description=(
            "Run one task headless and exit. The prompt is PROMPT, or what stdin holds with - (or "
            'with no PROMPT when stdin is not a terminal): echo "fix the failing test" | levelcode run'
        ),
    )
    from levelcode.cli.mcp.parser import MCP_EPILOG

    commands.add_parser(
        "mcp",
        fill=_fill_mcp,
        help="see and manage MCP servers",
        description="See and manage MCP servers.",
        epilog=MCP_EPILOG,
        formatter_class=RawDescriptionFormatter,
        allow_abbrev=False,
    )
    commands.add_parser(
        "sandbox",
        fill=_fill_sandbox,
        help="run a command in the sandbox, exactly as the agent would",
        description=(
            "Run CMD ARGS... in the sandbox exactly as the agent runs its commands (same policy, "
            "same environment, bash in the workspace, stdin closed), stream its output and exit "
            "with its status. Shell syntax needs a shell: levelcode sandbox -- bash -c 'make && make test'"
        ),
        usage="levelcode sandbox [--allow-network] [--allow-host HOST] [--add-dir DIR] [-C DIR] [-v] "
        "-- CMD [ARGS...]",
    )
    return parser


COMMANDS = ("run", "mcp", "sandbox")


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line read: a command and its arguments, or a prompt (cli/prompt_argument.py)
    for the REPL or, with -p, for a headless run. Usage errors exit 2, as argparse's do."""
    from levelcode.cli.prompt_argument import split_prompt

    parser = build_parser()
    try:
        words, prompt = split_prompt(sys.argv[1:] if argv is None else argv, parser, COMMANDS)
    except ValueError as exc:
        parser.error(str(exc))
    args = parser.parse_args(words)
    if args.command is None:
        args.prompt = prompt
    _check_print_options(parser, args)
    return args


def _check_print_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    printing = getattr(args, "print_mode", False)
    if printing and args.command is not None:
        usage = f'levelcode -p "PROMPT" (or levelcode {args.command} ...)'
        parser.error(f"-p runs a prompt and takes no command: {usage}")
    if args.command is None and not printing and hasattr(args, "output_format"):
        parser.error('--output-format needs -p: levelcode -p --output-format FORMAT "PROMPT"')
    if args.command == "run" and args.json and getattr(args, "output_format", "stream-json") != "stream-json":
        parser.error("give --json or --output-format, not both (--json is --output-format stream-json)")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    try:
        return _dispatch(args)
    except ConfigError as exc:  # a request that cannot be met: say so, no traceback
        from levelcode.ui.visible import visible_block

        print(f"levelcode: {visible_block(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        # The command is done and the process ends next: the collections Python runs at exit need
        # not walk every object LevelCode made (after `mcp list` that walk was most of the ~40 ms
        # the exit took; exit handlers and flushing happen as ever).
        gc.freeze()


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "mcp":
        from levelcode.cli.mcp.dispatch import run_mcp_command

        return run_mcp_command(args)
    if args.command == "sandbox":
        from levelcode.cli.sandbox_command import run_sandbox_command

        return run_sandbox_command(args)
    if args.command == "run" or getattr(args, "print_mode", False):
        from levelcode.cli.run import run_headless

        return run_headless(args)
    from levelcode.cli.repl.interactive import run_interactive

    return run_interactive(args)
