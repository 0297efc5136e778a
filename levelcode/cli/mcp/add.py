"""`levelcode mcp add` and `levelcode mcp add-json`: add a server without editing JSON, in LevelCode's
own forms (`NAME -- COMMAND [ARGS...]`, `--url URL`, `--json ENTRY`) and as Claude Code's
`claude mcp add` is written in the wild (`--transport stdio|http|sse NAME COMMAND_OR_URL [ARGS...]`,
options before or after NAME, `-s/--scope`, `-e/--env`, `-H/--header`, `add-json NAME JSON`).

Writes the one file the scope names (cli/mcp/scope.py), keeping the rest of it. Entries are built
and validated in mcp/config/edit.py with the checks config loading applies; nothing typed is
expanded or run. A mistake gets the right form in the error, with the user's own name and URL.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from levelcode.cli.mcp.manage_parser import add_server_options
from levelcode.cli.mcp.scope import ServersFile, edit_servers_file, scope_line, scopes_naming, servers_file
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core.errors import ConfigError
from levelcode.mcp.config.argv import is_env_entry, is_header_entry, is_url
from levelcode.mcp.config.edit import (
    AddRequest,
    Entry,
    ServerExists,
    build_entry,
    split_add_arguments,
    user_servers,
    validate_entry,
    with_server,
)
from levelcode.mcp.config.files import load_mcp_config, load_workspace_tier
from levelcode.mcp.config.shown_values import shown_header, shown_header_text
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.plan import launch_text
from levelcode.platform.json_store import JsonDoc


class _OptionsParser(argparse.ArgumentParser):
    """Parses the options typed after NAME; errors become ConfigError instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def mcp_add(args: argparse.Namespace) -> int:
    if any(word in ("-h", "--help") for word in split_add_arguments(args.rest)[0]):
        print(args.add_help())
        return 0
    try:
        request, replace, scope = add_request(args)
    except ConfigError as exc:
        return fail(exc, 2)
    if request.from_registry is not None or request.inputs or request.registry:
        from levelcode.cli.mcp.registry import add_from_registry

        return add_from_registry(args, request, replace=replace, scope=scope, write=write_server)
    return add_server(args, request, replace=replace, scope=scope)


def mcp_add_json(args: argparse.Namespace) -> int:
    """`mcp add-json NAME JSON`, as Claude Code's: the same as `mcp add NAME --json JSON`; with
    `-` for JSON, the entry is read from stdin (`… | levelcode mcp add-json NAME -`)."""
    if args.entry != "-":
        request = AddRequest(json_text=args.entry, json_source="ENTRY")
        return add_server(args, request, replace=args.replace, scope=args.scope)
    if sys.stdin.isatty():
        say("levelcode: reading the entry's JSON from stdin; end it with Ctrl-D", err=True)
    try:
        text = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        return fail(f"could not read the entry from stdin: {exc}", 2)
    if not text.strip():
        example = f"""echo '{{"command": "uvx"}}' | levelcode mcp add-json {args.name} -"""
        return fail(f"stdin held no JSON; pipe the entry in, as in: {example}", 2)
    request = AddRequest(json_text=text, json_source="the JSON read from stdin")
    return add_server(args, request, replace=args.replace, scope=args.scope)


def add_request(args: argparse.Namespace) -> tuple[AddRequest, bool, str | None]:
    """What was typed, before NAME (parsed by argparse into `args`) and after it (`args.rest`)."""
    options, words = split_add_arguments(args.rest)
    if words and is_url(words[0]):  # a URL takes no arguments: what follows it are options
        options, words = [*options, *words[1:]], words[:1]
    late, stray = _late_options().parse_known_args(options)
    if stray:
        if words or len(stray) > 1 or not is_url(stray[0]):
            raise ConfigError(_unexpected(stray[0]))
        words = stray  # `-t http URL`: the URL among the options
    if late.workspace:
        args.workspace = late.workspace

    def pick(key: str) -> Any:
        value = getattr(late, key)
        return value if value is not None else getattr(args, key)

    url, transport = pick("url"), pick("transport")
    if words and is_url(words[0]):
        url, words = _positional_url(words[0], url, transport, args.name), []
    if args.client_secret or late.client_secret:
        raise ConfigError(CLIENT_SECRET)
    request = AddRequest(
        command=tuple(words),
        env=(*(args.env or ()), *(late.env or ())),
        cwd=pick("cwd"),
        timeout=pick("timeout"),
        startup_timeout=pick("startup_timeout"),
        url=url,
        headers=(*(args.headers or ()), *(late.headers or ())),
        json_text=pick("json_text"),
        transport=transport,
        client_id=pick("client_id"),
        callback_port=pick("callback_port"),
        from_registry=pick("from_registry"),
        inputs=(*(args.inputs or ()), *(late.inputs or ())),
        registry=pick("registry"),
    )
    return request, bool(args.replace or late.replace), pick("scope")


CLIENT_SECRET = (
    "--client-secret: LevelCode reads an OAuth client secret from your environment when the server "
    'starts; put it in the entry as "oauth": {"clientId": "…", "clientSecret": "${MY_SECRET}"} '
    "(mcp add-json NAME '{…}')"
)


def _late_options() -> _OptionsParser:
    parser = _OptionsParser(prog="levelcode mcp add", add_help=False, allow_abbrev=False)
    add_server_options(parser)
    parser.add_argument("-C", dest="workspace")
    return parser


def _positional_url(url: str, given: str | None, transport: str | None, name: str) -> str:
    if given is not None:
        raise ConfigError(f"two URLs ({given} and {url}); give one, after NAME or with --url")
    if transport is None:
        raise ConfigError(
            f"{url} is a URL: say how to reach it, as in: levelcode mcp add --transport http {name} "
            f"{url} (Streamable HTTP), or --transport sse for the older HTTP+SSE transport"
        )
    return url


def _unexpected(word: str) -> str:
    if is_env_entry(word):
        return f"unexpected {word!r}: an env entry follows -e, as in: -e A=1 B=2"
    if is_header_entry(word):
        return f"unexpected {shown_header_text(word)!r}: a header follows -H, as in: -H 'X-A: 1' 'X-B: 2'"
    return (
        f"unexpected {word!r}; put the server's command after --, as in: "
        "levelcode mcp add NAME [-e KEY=VALUE]... -- COMMAND [ARGS...]"
    )


def add_server(args: argparse.Namespace, request: AddRequest, *, replace: bool, scope: str | None) -> int:
    name = args.name
    try:
        if "=" in name:
            raise ConfigError(
                f"{name!r} is not a server name but looks like an env entry: give each one its own -e"
            )
        entry = build_entry(request, is_existing_path=os.path.exists, name=name)
    except ConfigError as exc:
        return fail(exc, 2)
    return write_server(args, name, entry, replace=replace, scope=scope)


def write_server(
    args: argparse.Namespace,
    name: str,
    entry: Entry,
    *,
    replace: bool,
    scope: str | None,
    about: Callable[[ServerSpec], list[str]] = lambda _spec: [],
) -> int:
    """Validate `entry` as config loading would, write it into the scope's file and say what was
    added (`about`: lines on it from whoever built the entry)."""
    try:
        target = servers_file(scope, workspace_of(args))
        spec = validate_entry(name, entry, file=str(target.path), tier=target.doc.tier)
    except ConfigError as exc:
        return fail(exc, 2)
    existed: list[bool] = []

    def add(doc: JsonDoc) -> JsonDoc:
        existed.append(name in user_servers(doc, target.doc))
        return with_server(doc, name, entry, replace=replace, of=target.doc)

    try:
        edit_servers_file(target, add)
    except ServerExists as exc:
        return fail(f"{exc}; see it with `levelcode mcp get {name}`, or add again with --replace", 1)
    except ConfigError as exc:
        return fail(exc, 1)
    verb = "Replaced" if existed[0] else "Added"
    workspace = workspace_of(args)
    say(f"{verb} MCP server {name!r} in {target.path}", scope_line(target, workspace, typed=scope))
    say(*about(spec), *launch_lines(spec), *_what_now(spec, target), *_also_named(workspace, name, target))
    say(*_policy_note(args, name, target))
    return 0


def _policy_note(args: argparse.Namespace, name: str, target: ServersFile) -> list[str]:
    """What the organisation's policy makes of the server just added, when it decides."""
    spec = load_mcp_config(workspace_of(args)).server(name)
    if spec is None or spec.organisation is None:
        return []
    if spec.provenance.tier == "organisation":
        policy = spec.provenance.file
        return [f"note: your organisation's policy ({policy}) requires its own {name!r}; that one runs."]
    if spec.organisation.blocked is not None:
        return [f"note: it will not start: it is {spec.organisation.blocked}"]
    return []


def launch_lines(spec: ServerSpec) -> list[str]:
    lines = [f"  runs:    {launch_text(spec)}"]
    if isinstance(spec, StdioServerSpec):
        lines += [f"  env:     {key}={value}" for key, value in spec.env]
        lines += [f"  cwd:     {spec.cwd}"] if spec.cwd else []
    else:
        lines += ["  via:     the older HTTP+SSE transport"] if spec.legacy_sse else []
        lines += [f"  header:  {shown_header(key, value)}" for key, value in spec.headers]
        if spec.oauth is not None and spec.oauth.client_id is not None:
            lines.append(f"  sign-in: OAuth client {spec.oauth.client_id}")
    timeouts = (("timeout:", spec.timeout), ("startup:", spec.startup_timeout))
    return lines + [f"  {label:<9}{seconds:g} s" for label, seconds in timeouts if seconds is not None]


def _what_now(spec: ServerSpec, target: ServersFile) -> list[str]:
    name = spec.name
    if target.repository:
        return [
            "It is a repository's server (workspace tier): LevelCode asks before it starts it, here",
            "and wherever this file is; commit the file to share it. Review and approve it here with:",
            f"levelcode mcp trust {name}",
        ]
    where = "in this workspace only" if target.scope == "local" else "in every workspace"
    lines = [
        f"It is your own server: LevelCode starts it without asking for approval, {where},",
        f"from your next session on. See it with: levelcode mcp get {name}",
    ]
    if isinstance(spec, StdioServerSpec) and not spec.cwd:
        lines += [
            "It starts in its own empty directory, not in the workspace; if it needs the project,",
            "add it with --cwd . (relative to the workspace) or ${workspaceFolder} in its arguments.",
        ]
    return lines


def _also_named(workspace: Path, name: str, target: ServersFile) -> list[str]:
    """Other files naming the same server, and which one runs here."""
    spec = load_mcp_config(workspace).server(name)
    if spec is not None and spec.provenance.file != str(target.path):
        return [f"note: {spec.provenance.file} also names a server {name!r}; that one runs here, not this."]
    notes = [
        f"note: {other.path} ({other.scope}) also names a server {name!r}; this one runs here."
        for other in scopes_naming(name, workspace)
        if other.path != target.path and not other.repository
    ]
    if not target.repository:
        notes += [
            f"note: {file} also names a server {name!r}; yours is the one that runs there."
            for file in workspace_files_naming(workspace, name)
        ]
    return notes


def workspace_files_naming(workspace: Path, name: str) -> list[str]:
    return [
        spec.provenance.file
        for tier in load_workspace_tier(workspace)
        for spec in tier.servers
        if spec.name == name
    ]
