"""Arguments of `levelcode mcp …`: only argparse and constants, so that building the parser (which
every `levelcode mcp` invocation does) imports none of the commands themselves. Each action's
arguments are added only when it is the one chosen (`CommandParser(fill=…)`)."""

from __future__ import annotations

import argparse
from typing import Any

from levelcode.cli.mcp.manage_parser import add_import_parser, add_manage_parsers
from levelcode.cli.mcp.parser_parts import (
    ActionParser,
    AddOptions,
    json_flag,
    name_argument,
    one_server,
    with_common,
)
from levelcode.cli.mcp.registry_parser import add_search_parser, search_arguments
from levelcode.cli.parser_base import CommandParser, RawDescriptionFormatter

MCP_EPILOG = """\
examples:
  levelcode mcp list                         every configured server, its state and tools
  levelcode mcp call time get_current_time '{"timezone": "UTC"}'
  levelcode mcp resources everything         a server's resources and URI templates
  levelcode mcp read everything demo://resource/static/document/architecture.md
  levelcode mcp prompt everything args-prompt '{"city": "Paris"}'
  levelcode mcp trust NAME                   review a repository's server and approve it here
  levelcode mcp login NAME                   sign in to a remote server (OAuth, in your browser)
  levelcode mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/projects
  levelcode mcp add --transport http notion https://mcp.notion.com/mcp
  levelcode mcp search filesystem            find servers in the MCP Registry; each shows how to add it
  levelcode mcp import                       show servers configured for other tools; --yes adds them
"""


def fill_mcp_parser(mcp: CommandParser, common: AddOptions) -> None:
    """`levelcode mcp`'s own options and its actions, each to be filled when chosen."""
    common(mcp)
    actions = mcp.add_subparsers(
        dest="mcp_command", metavar="ACTION", required=True, parser_class=ActionParser
    )
    add_inspect_parsers(actions, common)
    add_login_parsers(actions, common)
    add_manage_parsers(actions, common)
    add_import_parser(actions, common)
    add_content_parsers(actions, common)
    add_search_parser(actions, with_common(common, search_arguments))


CALL_EPILOG = """\
exit status:
  0  the tool answered    1  it answered with an error, or the server is not running
  2  no such server or tool, or ARGUMENTS that are not a JSON object
"""


LIST_EPILOG = """\
exit status:
  0  nothing failed (servers awaiting your approval, or disabled, are not failures)
  1  a server failed to start, or a configuration file or a server's entry could not be used
  3  a remote server needs you to sign in (levelcode mcp login NAME), and nothing failed
A configuration file that cannot be used is named first, on stderr, with the line and column.
"""


def add_inspect_parsers(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "list",
        fill=with_common(common, _list_arguments),
        help="list configured servers, one line each (-v: their tools too)",
        description="List every configured server (yours and the repository's), one line each: "
        "NAME: COMMAND or URL - its state, its tool count and scope, and what to do next (as "
        "Claude Code's `name: command - ✓ Connected`). With -v, every fact too, and its tools under "
        "the names the model sees (with the server's own name where the model's is not "
        "SERVER__TOOL); one server's: levelcode mcp get NAME. Only servers that may start without "
        "asking are started.",
        epilog=LIST_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "call",
        fill=with_common(common, _call_arguments),
        help="call one tool and print what the model would get",
        description="Call one tool and print what the model would get. On a terminal, control "
        "characters in the result (escape sequences, CR, bidi overrides, zero-width characters) are "
        "shown as escapes; piped or redirected, the result is written byte for byte, for scripts.",
        epilog=CALL_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "trust",
        fill=with_common(common, _trust_arguments),
        help="review and approve a repository's server for this workspace",
    )
    actions.add_parser(
        "revoke",
        fill=with_common(common, _revoke_arguments),
        help="forget approvals of a repository's servers in this workspace",
    )


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    json_flag(parser)
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="each server's facts and tools, not one line each"
    )


def _trust_arguments(trust: argparse.ArgumentParser) -> None:
    trust.add_argument("server", help="server name as the repository's config names it")


def _call_arguments(call: argparse.ArgumentParser) -> None:
    call.add_argument(
        "server", help="server name as configured, or the tool's name alone as mcp list shows (SERVER__TOOL)"
    )
    call.add_argument(
        "tool",
        nargs="?",
        help="the tool, by the server's own name or the model's (SERVER__TOOL, as mcp list shows)",
    )
    call.add_argument("arguments", nargs="?", help="tool arguments as a JSON object (default {})")


def _revoke_arguments(revoke: argparse.ArgumentParser) -> None:
    revoke.add_argument("name", metavar="NAME", nargs="?")
    revoke.add_argument("--all", action="store_true", help="every approval for this workspace")


def add_content_parsers(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "resources",
        fill=with_common(common, _server_and_json),
        help="list a server's resources and URI templates",
    )
    actions.add_parser(
        "read",
        fill=with_common(common, _read_arguments),
        help="read one resource and print its contents",
        description="Read one resource and print its contents (binary data is summarised, never printed).",
    )
    actions.add_parser(
        "prompts",
        fill=with_common(common, _server_and_json),
        help="list a server's prompts and their arguments",
    )
    actions.add_parser(
        "prompt",
        fill=with_common(common, _prompt_arguments),
        help="print the messages of one of a server's prompts",
    )


def _server_and_json(parser: argparse.ArgumentParser) -> None:
    one_server(parser)
    json_flag(parser)


def _read_arguments(read: argparse.ArgumentParser) -> None:
    one_server(read)
    read.add_argument("uri", help="the resource's URI")


def _prompt_arguments(prompt: argparse.ArgumentParser) -> None:
    one_server(prompt)
    prompt.add_argument("name", help="the prompt's name")
    prompt.add_argument(
        "arguments", nargs="?", default="{}", help="its arguments as a JSON object of strings"
    )
    json_flag(prompt)


def add_login_parsers(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "login",
        fill=with_common(common, _login_arguments),
        help="sign in to a remote server (OAuth, in your browser)",
        description="Sign in to a remote MCP server through its OAuth authorization server: the "
        "authorization server is named first, then your browser opens (the address is printed too, "
        "for a machine without a browser). What you get is kept in the system keyring, or in a "
        "file only you can read under the state dir.",
    )
    actions.add_parser(
        "logout",
        fill=with_common(common, name_argument),
        help="forget a remote server's sign-in (tokens, registered client)",
    )


def _login_arguments(login: argparse.ArgumentParser) -> None:
    name_argument(login)
    login.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address; then paste the address the sign-in ends on",
    )
