"""Arguments of `levelcode mcp search` and of `mcp add … --from-registry`: only argparse and
constants, like the rest of the `mcp` parser (cli/mcp/parser.py), which adds them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from levelcode.cli.parser_base import CommandParser, RawDescriptionFormatter


def add_registry_options(parser: argparse.ArgumentParser, *, before_name: bool = False) -> None:
    """`mcp add … --from-registry`: the entry made from a server the MCP Registry lists. Before
    NAME the flag takes no value (`mcp add --from-registry SERVER`: NAME is the server)."""
    taking = {"action": "store_const"} if before_name else {"nargs": "?", "metavar": "SERVER[@VERSION]"}
    parser.add_argument(
        "--from-registry",
        dest="from_registry",
        const="",
        help="make the entry from the MCP Registry's server (NAME is that server unless given here)",
        **taking,  # type: ignore[arg-type]
    )
    parser.add_argument(
        "--input", dest="inputs", action="append", metavar="KEY=VALUE", help="a value the server asks for"
    )
    parser.add_argument("--registry", metavar="URL", help="the MCP Registry to ask (this command only)")


SEARCH_EPILOG = """\
examples:
  levelcode mcp search github                 servers whose name holds "github"
  levelcode mcp search "web search" --describe   words in the name, title or description
  levelcode mcp search postgres --all         every match, not the first 20

Each result ends with the command that adds it. The registry is the official one
(https://registry.modelcontextprotocol.io) unless your settings' "mcpRegistry", --registry URL,
or your organisation's policy names another.
"""


def add_search_parser(actions: Any, fill: Callable[[CommandParser], None]) -> None:
    actions.add_parser(
        "search",
        fill=fill,
        help="find servers in the MCP Registry by name (or description, with --describe)",
        description="Find MCP servers in the MCP Registry: name, title, description, latest version, "
        "how it runs (npm, pypi, oci package, or remote) and the command that adds it.",
        epilog=SEARCH_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )


def search_arguments(search: argparse.ArgumentParser) -> None:
    search.add_argument("text", nargs="?", metavar="TEXT", help="what to look for (empty: every server)")
    search.add_argument("--limit", type=int, default=20, metavar="N", help="show at most N (default 20)")
    search.add_argument("--all", action="store_true", help="every match, page after page")
    search.add_argument(
        "--describe",
        action="store_true",
        help="match every word of TEXT against name, title and description (reads the whole registry)",
    )
    search.add_argument("--registry", metavar="URL", help="the MCP Registry to ask (this command only)")
    search.add_argument("--json", action="store_true", help="machine-readable output")
