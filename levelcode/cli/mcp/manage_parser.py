"""Arguments of the `levelcode mcp` actions that change what is configured: `add`, `add-json`,
`remove`, `get`, `enable`/`disable`, `import`. Only argparse and constants, like cli/mcp/parser.py."""

from __future__ import annotations

import argparse
from typing import Any

from levelcode.cli.mcp.parser_parts import SEVERAL_VALUES, AddOptions, json_flag, name_argument, with_common
from levelcode.cli.mcp.registry_parser import add_registry_options
from levelcode.cli.parser_base import CommandParser, RawDescriptionFormatter
from levelcode.mcp.config.import_tools import TOOLS

ADD_USAGE = """\
levelcode mcp add [-s SCOPE] [-e KEY=VALUE...] [--cwd DIR] [--timeout S] NAME -- COMMAND [ARGS...]
       levelcode mcp add [-s SCOPE] --transport http|sse [-H 'Key: Value'...] NAME URL
       levelcode mcp add NAME --url URL [--header 'Key: Value']...
       levelcode mcp add NAME --json ENTRY      (or: levelcode mcp add-json NAME ENTRY)
       levelcode mcp add SERVER[@VERSION] --from-registry [--input KEY=VALUE]...
       levelcode mcp add NAME --from-registry SERVER[@VERSION] [--input KEY=VALUE]..."""
ADD_EPILOG = """\
examples:
  levelcode mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/projects
  levelcode mcp add fs -- "npx -y pkg '/Users/me/My Documents'"    (one line: split, never run by a shell)
  levelcode mcp add github -e 'GITHUB_TOKEN=${GITHUB_TOKEN}' -- github-mcp-server stdio
  levelcode mcp add db -e PGHOST=localhost PGPORT=5432 -- npx -y @modelcontextprotocol/server-postgres
  levelcode mcp add --transport http notion https://mcp.notion.com/mcp
  levelcode mcp add --transport sse linear https://mcp.linear.app/sse
  levelcode mcp add -t http api https://mcp.example.com/mcp -H 'X-Team: web' 'X-Region: eu'
  levelcode mcp add api --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${API_TOKEN}'
  levelcode mcp add -s local fs -- npx -y @modelcontextprotocol/server-filesystem .
  levelcode mcp add -s project fs -- npx -y @modelcontextprotocol/server-filesystem .
  levelcode mcp add time --json '{"command": "uvx", "args": ["mcp-server-time"]}'
  levelcode mcp add io.github.brave/brave-search-mcp-server --from-registry
  levelcode mcp add brave --from-registry io.github.brave/brave-search-mcp-server@2.1.3

From the MCP Registry (find servers with `levelcode mcp search TEXT`): the entry runs exactly the
version the registry lists (npx -y pkg@1.2.3, uvx pkg==1.2.3, an image by digest or release tag),
in the sandbox (its own folder, the network only to its package registry), with the values it
declares secret written as ${VAR} references to your environment, never as the secret itself.
Values it needs come from --input KEY=VALUE, or are asked for on a terminal; -t http or -t sse
takes its remote server instead of its package. Details: docs/registry.md.

Options go before or after NAME (as with Claude Code's `claude mcp add`); -e and -H take several
values each, up to the next option or --; after the command, every word is the command's own.
Values are stored as written: ${VAR} is filled in from your environment when the configuration is
read (a secret's only when the server starts). A header's value is never printed.

scopes (-s, --scope):
  user     your settings.json: yours, starts without asking, in every workspace (the default)
  local    your file for this workspace alone, kept outside it (every worktree of its repository
           shares it): yours, starts without asking, only here
  project  the workspace's .mcp.json, the repository's file: asks before it starts (mcp trust)
The default is user, where Claude Code's is local: a server added without -s works in this
workspace either way, and in LevelCode also in your others. Say -s local for this one only.

exit status:
  0  added    1  the name is in that file already, or the file cannot be written
  2  typed wrong, or an entry config loading would refuse: nothing written
  (Claude Code: 0, or 1 for every error)
"""

REMOVE_EPILOG = """\
Without -s, the server is removed from the one scope whose file has it: your settings.json
(user), your file for this workspace (local) or the workspace's .mcp.json (project).

exit status:
  0  removed
  1  the name is in several scopes (they are listed; nothing is removed: say which with -s),
     or not in the scope -s names
  2  no server of that name anywhere
  (Claude Code: 0, or 1 for every error)
"""

ADD_JSON_EPILOG = """\
examples:
  levelcode mcp add-json time '{"command": "uvx", "args": ["mcp-server-time"]}'
  levelcode mcp add-json -s project notion '{"type": "http", "url": "https://mcp.notion.com/mcp"}'
  cat entry.json | levelcode mcp add-json time -     (- : the entry is read from stdin)
"""

IMPORT_EPILOG = """\
where it looks (the user's own files first):
  Claude Desktop  claude_desktop_config.json in ~/Library/Application Support/Claude (macOS),
                  %APPDATA%\\Claude (Windows), ~/.config/Claude (Linux)
  Claude Code     ~/.claude.json: your servers (-s user) and those you added for this project
                  (-s local); .mcp.json in the workspace (written by the repository)
  Cursor          ~/.cursor/mcp.json; .cursor/mcp.json in the workspace (written by the repository)
  VS Code         mcp.json and settings.json in your VS Code user folder;
                  .vscode/mcp.json in the workspace (written by the repository)

where each one goes (the scopes of `levelcode mcp add -s`); imported servers start without asking:
  -s user   your settings.json, every workspace: your servers in Claude Code (-s user), Claude
            Desktop, Cursor and VS Code
  -s local  your servers for this workspace alone, kept outside it: what you added in Claude Code
            for this project (-s local; Claude Code keeps a git repository's under its main folder),
            and a repository's servers imported with --include-repo
Servers you added in Claude Code for other projects are listed, not imported: run the import in
that project's folder (or with -C DIR) to make them its own. A name you already have in the file a
server would go to is never replaced. Servers from a repository's files are only imported with
--include-repo.

examples:
  levelcode mcp import --dry-run             show what would be added; write nothing
  levelcode mcp import --from cursor --yes   import your Cursor servers without asking
"""


def _scope_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-s",
        "--scope",
        choices=("user", "project", "local"),
        help="user: your settings.json, every workspace (the default; Claude Code's is local); "
        "local: yours, this workspace only; project: the workspace's .mcp.json",
    )


def add_server_options(parser: argparse.ArgumentParser, *, before_name: bool = False) -> None:
    """The options of `mcp add` (also re-parsed after NAME by mcp_add; `before_name`: as read
    before NAME, where `--from-registry` takes no value, so that NAME is the registry's server)."""
    parser.add_argument(
        "-t",
        "--transport",
        choices=("stdio", "http", "sse"),
        help="stdio: a command (the default); http: a Streamable HTTP URL; sse: an older HTTP+SSE URL",
    )
    _scope_option(parser)
    parser.add_argument(
        "-e",
        "--env",
        dest="env",
        action="append",
        metavar="KEY=VALUE",
        help="env entry, stored as written (several may follow one -e: -e A=1 B=2)",
    )
    parser.add_argument("--cwd", metavar="DIR", help="working directory (relative: to the workspace)")
    parser.add_argument("--timeout", metavar="S", help="seconds per call")
    parser.add_argument("--startup-timeout", dest="startup_timeout", metavar="S", help="seconds to start")
    parser.add_argument("--url", help="an HTTP (Streamable HTTP) server's URL")
    parser.add_argument(
        "-H",
        "--header",
        dest="headers",
        action="append",
        metavar="'KEY: VALUE'",
        help="HTTP header (several may follow one -H); its value is never printed",
    )
    parser.add_argument("--json", dest="json_text", metavar="ENTRY", help="the whole entry as JSON")
    parser.add_argument("--replace", action="store_true", help="overwrite a server of the same name")
    parser.add_argument("--client-id", dest="client_id", metavar="ID", help="OAuth client ID (HTTP)")
    parser.add_argument(
        "--callback-port", dest="callback_port", metavar="PORT", help="fixed OAuth callback port (HTTP)"
    )
    parser.add_argument("--client-secret", dest="client_secret", action="store_true", help=argparse.SUPPRESS)
    add_registry_options(parser, before_name=before_name)


def add_manage_parsers(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "add",
        fill=with_common(common, _add_arguments),
        several=SEVERAL_VALUES,
        help="add a server to your settings (-s local: for this workspace only; -s project: its .mcp.json)",
        usage=ADD_USAGE,
        description="Add an MCP server to your own settings (user scope, the default): it starts "
        "without asking, in every workspace. With -s local it is yours for this workspace only; "
        "with -s project it goes into the workspace's .mcp.json, where it asks first.",
        epilog=ADD_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "add-json",
        fill=with_common(common, _add_json_arguments),
        help="add a server from its JSON entry (as Claude Code's `mcp add-json`)",
        description="Add an MCP server from its whole entry, written as JSON: the same as "
        "`levelcode mcp add NAME --json ENTRY`.",
        epilog=ADD_JSON_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "get",
        fill=with_common(common, _get_arguments),
        help="one server: entry, origin, launch, trust, live tools",
        description="One server: its entry as written, origin, launch and trust; and, when it may start "
        "without asking (your own, or a repository's approved here), its live tools and where a cap on "
        "their text bit. A server that needs approval is never started.",
    )
    actions.add_parser(
        "remove",
        fill=with_common(common, _remove_arguments),
        help="remove a server from the one scope that has it (in several: say which with -s)",
        epilog=REMOVE_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    for name, text in (
        ("enable", 'remove "disabled": true from a server in your settings (--here: in this workspace)'),
        ("disable", 'set "disabled": true on a server in your settings (--here: in this workspace only)'),
    ):
        actions.add_parser(name, fill=with_common(common, _toggle_arguments), help=text)


def _toggle_arguments(toggle: argparse.ArgumentParser) -> None:
    name_argument(toggle)
    toggle.add_argument(
        "--here",
        action="store_true",
        help="only in this workspace's repository (every worktree of it), not in your settings; "
        "any server, yours or the repository's",
    )


def _add_arguments(add: CommandParser) -> None:
    name_argument(add)
    add_server_options(add, before_name=True)
    add.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    add.set_defaults(add_help=add.format_help)


def _add_json_arguments(add_json: argparse.ArgumentParser) -> None:
    name_argument(add_json)
    add_json.add_argument("entry", metavar="ENTRY", help="the server's entry as JSON; - reads it from stdin")
    _scope_option(add_json)
    add_json.add_argument("--replace", action="store_true", help="overwrite a server of the same name")


def _remove_arguments(remove: argparse.ArgumentParser) -> None:
    name_argument(remove)
    _scope_option(remove)


def _get_arguments(get: argparse.ArgumentParser) -> None:
    name_argument(get)
    json_flag(get)
    get.add_argument("--no-start", action="store_true", help="show the entry only; start nothing")


def add_import_parser(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "import",
        fill=with_common(common, _import_arguments),
        help="bring in MCP servers you set up for Claude Desktop, Claude Code, Cursor or VS Code",
        description="Copy MCP servers you set up for other tools into your settings.json (those that "
        "were this project's: into your servers for this workspace), after showing exactly what each "
        "one runs.",
        epilog=IMPORT_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "add-from-claude-desktop",
        fill=with_common(common, _claude_desktop_arguments),
        help="import your Claude Desktop servers (as Claude Code's command of that name)",
        description="Copy the MCP servers of your Claude Desktop into your settings.json (-s local: into "
        "your servers for this workspace alone), after showing exactly what each one runs: the same as "
        "`levelcode mcp import --from claude-desktop`.",
    )


def _claude_desktop_arguments(parser: argparse.ArgumentParser) -> None:
    _scope_option(parser)
    parser.add_argument("--yes", action="store_true", help="write without asking (for scripts)")
    parser.add_argument("--dry-run", action="store_true", help="show what would be added; write nothing")


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="sources",
        action="append",
        choices=TOOLS,
        metavar="TOOL",
        help=f"only this tool: {', '.join(TOOLS)} (repeatable)",
    )
    parser.add_argument("--yes", action="store_true", help="write without asking (for scripts)")
    parser.add_argument("--dry-run", action="store_true", help="show what would be added; write nothing")
    parser.add_argument(
        "--include-repo",
        action="store_true",
        help="also import servers defined by the workspace's own files (.mcp.json, .cursor/mcp.json, "
        ".vscode/mcp.json), into your servers for this workspace alone; they will start without asking",
    )
