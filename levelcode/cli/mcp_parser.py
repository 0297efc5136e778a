"""Arguments of `levelcode mcp …`."""

from __future__ import annotations

import argparse
from typing import Any

MCP_EPILOG = """\
examples:
  levelcode mcp list                         every configured server, its state and tools
  levelcode mcp call time get_current_time '{"timezone": "UTC"}'
  levelcode mcp trust NAME                   review a repository's server and approve it here
  levelcode mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/projects
  levelcode mcp import                       show servers configured for other tools; --yes adds them
"""


def add_mcp_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    mcp = commands.add_parser(
        "mcp",
        parents=[common],
        help="see and manage MCP servers",
        description="See and manage MCP servers.",
        epilog=MCP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list", parents=[common], help="list configured servers, their state and tools"
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    call = actions.add_parser(
        "call", parents=[common], help="call one tool and print what the model would get"
    )
    call.add_argument("server", help="server name as configured")
    call.add_argument("tool", help="the server's own tool name")
    call.add_argument("arguments", nargs="?", default="{}", help="tool arguments as a JSON object")
    trust = actions.add_parser(
        "trust", parents=[common], help="review and approve a repository's server for this workspace"
    )
    trust.add_argument("server", help="server name as the repository's config names it")
    revoke = actions.add_parser(
        "revoke", parents=[common], help="forget approvals of a repository's servers in this workspace"
    )
    revoke.add_argument("name", metavar="NAME", nargs="?")
    revoke.add_argument("--all", action="store_true", help="every approval for this workspace")
    from levelcode.cli.mcp_import import add_import_parser
    from levelcode.cli.mcp_manage import add_manage_parsers

    add_manage_parsers(actions, common)
    add_import_parser(actions, common)
