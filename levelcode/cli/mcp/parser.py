"""Arguments of `levelcode mcp …`: only argparse and constants, so that building the parser (which
every `levelcode mcp` invocation does) imports none of the commands themselves. Each action's
arguments are added only when it is the one chosen (`CommandParser(fill=…)`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from levelcode.cli.mcp.registry_parser import add_registry_options, add_search_parser, search_arguments
from levelcode.cli.parser_base import CommandParser, RawDescriptionFormatter
from levelcode.mcp.config.argv import is_env_entry, is_header_entry, is_url
from levelcode.mcp.config.import_tools import TOOLS

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


AddOptions = Callable[[argparse.ArgumentParser], None]
# The options after which, as in Claude Code's `-e <env...>` and `-H <header...>`, several values
# may follow one flag: each word that reads as one (KEY=VALUE, Key: Value) until the next option.
SEVERAL_VALUES: Mapping[str, Callable[[str], bool]] = {
    "-e": is_env_entry,
    "--env": is_env_entry,
    "-H": is_header_entry,
    "--header": is_header_entry,
}


class ActionParser(CommandParser):
    """The parser of one `levelcode mcp` action. `several`: its options that take several values
    after one flag; they are given one flag each before argparse reads the words, up to `--` or
    the server's command (whose words are its own), so NAME after them stays NAME."""

    def __init__(self, *, several: Mapping[str, Callable[[str], bool]] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._several = several or {}

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if args is not None and self._several:
            args = self.one_flag_each(list(args))
        return super().parse_known_args(args, namespace)

    def one_flag_each(self, words: Sequence[str]) -> list[str]:
        out: list[str] = []
        index, positionals, several = 0, 0, None
        while index < len(words):
            word = words[index]
            index += 1
            if word == "--":
                return [*out, word, *words[index:]]
            if several is not None and self._several[several](word):
                out += [several, word]
                continue
            several = None
            if word.startswith("-") and len(word) > 1:
                out.append(word)
                action = self.filled()._option_string_actions.get(word)
                if action is not None and action.nargs != 0 and index < len(words):
                    out.append(words[index])  # its value, whatever it looks like
                    index += 1
                    several = word if word in self._several else None
                continue
            out.append(word)
            positionals += 1
            if positionals > 1 and not is_url(word):  # the command starts: the rest is its own
                return [*out, *words[index:]]
        return out


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
    add_search_parser(actions, _with(common, search_arguments))


def _with(common: AddOptions, own: Callable[[CommandParser], None]) -> Callable[[CommandParser], None]:
    """A fill: the common options, then the action's own arguments."""

    def fill(parser: CommandParser) -> None:
        common(parser)
        own(parser)

    return fill


def _one_server(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", help="server name as configured")


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _name(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME")


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
        fill=_with(common, _list_arguments),
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
        fill=_with(common, _call_arguments),
        help="call one tool and print what the model would get",
        description="Call one tool and print what the model would get. On a terminal, control "
        "characters in the result (escape sequences, CR, bidi overrides, zero-width characters) are "
        "shown as escapes; piped or redirected, the result is written byte for byte, for scripts.",
        epilog=CALL_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "trust",
        fill=_with(common, _trust_arguments),
        help="review and approve a repository's server for this workspace",
    )
    actions.add_parser(
        "revoke",
        fill=_with(common, _revoke_arguments),
        help="forget approvals of a repository's servers in this workspace",
    )


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    _json_flag(parser)
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
        fill=_with(common, _server_and_json),
        help="list a server's resources and URI templates",
    )
    actions.add_parser(
        "read",
        fill=_with(common, _read_arguments),
        help="read one resource and print its contents",
        description="Read one resource and print its contents (binary data is summarised, never printed).",
    )
    actions.add_parser(
        "prompts",
        fill=_with(common, _server_and_json),
        help="list a server's prompts and their arguments",
    )
    actions.add_parser(
        "prompt",
        fill=_with(common, _prompt_arguments),
        help="print the messages of one of a server's prompts",
    )


def _server_and_json(parser: argparse.ArgumentParser) -> None:
    _one_server(parser)
    _json_flag(parser)


def _read_arguments(read: argparse.ArgumentParser) -> None:
    _one_server(read)
    read.add_argument("uri", help="the resource's URI")


def _prompt_arguments(prompt: argparse.ArgumentParser) -> None:
    _one_server(prompt)
    prompt.add_argument("name", help="the prompt's name")
    prompt.add_argument(
        "arguments", nargs="?", default="{}", help="its arguments as a JSON object of strings"
    )
    _json_flag(prompt)


def add_login_parsers(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "login",
        fill=_with(common, _login_arguments),
        help="sign in to a remote server (OAuth, in your browser)",
        description="Sign in to a remote MCP server through its OAuth authorization server: the "
        "authorization server is named first, then your browser opens (the address is printed too, "
        "for a machine without a browser). What you get is kept in the system keyring, or in a "
        "file only you can read under the state dir.",
    )
    actions.add_parser(
        "logout",
        fill=_with(common, _name),
        help="forget a remote server's sign-in (tokens, registered client)",
    )


def _login_arguments(login: argparse.ArgumentParser) -> None:
    _name(login)
    login.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address; then paste the address the sign-in ends on",
    )


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

CALL_EPILOG = """\
exit status:
  0  the tool answered    1  it answered with an error, or the server is not running
  2  no such server or tool, or ARGUMENTS that are not a JSON object
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
        fill=_with(common, _add_arguments),
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
        fill=_with(common, _add_json_arguments),
        help="add a server from its JSON entry (as Claude Code's `mcp add-json`)",
        description="Add an MCP server from its whole entry, written as JSON: the same as "
        "`levelcode mcp add NAME --json ENTRY`.",
        epilog=ADD_JSON_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "get",
        fill=_with(common, _get_arguments),
        help="one server: entry, origin, launch, trust, live tools",
        description="One server: its entry as written, origin, launch and trust; and, when it may start "
        "without asking (your own, or a repository's approved here), its live tools and where a cap on "
        "their text bit. A server that needs approval is never started.",
    )
    actions.add_parser(
        "remove",
        fill=_with(common, _remove_arguments),
        help="remove a server from the one scope that has it (in several: say which with -s)",
        epilog=REMOVE_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    for name, text in (
        ("enable", 'remove "disabled": true from a server in your settings (--here: in this workspace)'),
        ("disable", 'set "disabled": true on a server in your settings (--here: in this workspace only)'),
    ):
        actions.add_parser(name, fill=_with(common, _toggle_arguments), help=text)


def _toggle_arguments(toggle: argparse.ArgumentParser) -> None:
    _name(toggle)
    toggle.add_argument(
        "--here",
        action="store_true",
        help="only in this workspace's repository (every worktree of it), not in your settings; "
        "any server, yours or the repository's",
    )


def _add_arguments(add: CommandParser) -> None:
    _name(add)
    add_server_options(add, before_name=True)
    add.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    add.set_defaults(add_help=add.format_help)


def _add_json_arguments(add_json: argparse.ArgumentParser) -> None:
    _name(add_json)
    add_json.add_argument("entry", metavar="ENTRY", help="the server's entry as JSON; - reads it from stdin")
    _scope_option(add_json)
    add_json.add_argument("--replace", action="store_true", help="overwrite a server of the same name")


def _remove_arguments(remove: argparse.ArgumentParser) -> None:
    _name(remove)
    _scope_option(remove)


def _get_arguments(get: argparse.ArgumentParser) -> None:
    _name(get)
    _json_flag(get)
    get.add_argument("--no-start", action="store_true", help="show the entry only; start nothing")


def add_import_parser(actions: Any, common: AddOptions) -> None:
    actions.add_parser(
        "import",
        fill=_with(common, _import_arguments),
        help="bring in MCP servers you set up for Claude Desktop, Claude Code, Cursor or VS Code",
        description="Copy MCP servers you set up for other tools into your settings.json (those that "
        "were this project's: into your servers for this workspace), after showing exactly what each "
        "one runs.",
        epilog=IMPORT_EPILOG,
        formatter_class=RawDescriptionFormatter,
    )
    actions.add_parser(
        "add-from-claude-desktop",
        fill=_with(common, _claude_desktop_arguments),
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
