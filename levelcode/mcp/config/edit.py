"""Editing a file's `mcpServers` for `levelcode mcp add | add-json | remove | enable | disable`: the
user's settings.json, or (`-s project`) a workspace's `.mcp.json`, in either of its shapes
(`{"mcpServers": {…}}` or the bare map of servers).

Pure: builds a server entry from command-line input (LevelCode's forms and Claude Code's:
`--transport stdio|http|sse`), validates it with exactly the checks config loading applies
(`parse_server_entry`), and returns new documents. Never reads or writes a file, never expands
`${VAR}`, never lets a shell see a command line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from levelcode.core.errors import ConfigError, ConfigProblem
from levelcode.mcp.config.argv import is_url, split_command_line
from levelcode.mcp.config.managed_servers import REQUIRED_KEY
from levelcode.mcp.config.server_entry import parse_server_entry
from levelcode.mcp.config.shown_values import shown_header_text
from levelcode.mcp.config.specs import Provenance, ServerSpec, Tier
from levelcode.mcp.config.tiers import SERVERS_KEY

PURE = True

JsonDoc = dict[str, Any]
Entry = dict[str, object]


class EntryRefused(ConfigError):
    """The entry has problems config loading would report; nothing is written."""

    def __init__(self, name: str, problems: Sequence[ConfigProblem]) -> None:
        listed = "\n".join(f"  {p.key}: {p.message}" for p in problems)
        super().__init__(f"{name!r} was not added: config loading would report\n{listed}")
        self.problems = tuple(problems)


class ServerExists(ConfigError):
    """`add` without `--replace` for a name your settings already have."""


class ServerNotFound(ConfigError):
    """The name is not in your settings' `mcpServers`."""


TRANSPORTS = ("stdio", "http", "sse")
ONE_FORM = (
    "give exactly one of: -- COMMAND [ARGS...] (a stdio server), --transport http URL (an HTTP "
    "server; sse for the older SSE transport), or --json ENTRY"
)


@dataclass(frozen=True)
class AddRequest:
    """What `mcp add` was given, as typed: exactly one of command, url or json_text."""

    command: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    cwd: str | None = None
    timeout: str | None = None
    startup_timeout: str | None = None
    url: str | None = None
    headers: tuple[str, ...] = ()
    json_text: str | None = None
    json_source: str = "--json"  # how errors name where the JSON came from
    transport: str | None = None  # "stdio", "http" or "sse"; None: what the other input says
    client_id: str | None = None  # a remote server's pre-registered OAuth client
    callback_port: str | None = None
    from_registry: str | None = None  # `--from-registry [SERVER[@VERSION]]` ("": NAME is the server)
    inputs: tuple[str, ...] = ()  # `--input KEY=VALUE`: values for a registry server's entry
    registry: str | None = None  # `--registry URL`: the MCP Registry to ask, for this command

    @property
    def remote_only(self) -> list[str]:
        """The options given that only a remote server takes."""
        given = {"--header": bool(self.headers), "--client-id": self.client_id is not None}
        given["--callback-port"] = self.callback_port is not None
        return [option for option, value in given.items() if value]


def split_add_arguments(rest: Sequence[str]) -> tuple[list[str], list[str]]:
    """What follows NAME → (options, command). A first word that is not an option starts the
    command, so a `--` inside the server's own arguments stays one of them."""
    if not rest or not rest[0].startswith("-"):
        return [], list(rest)
    if "--" in rest:
        cut = rest.index("--")
        return list(rest[:cut]), list(rest[cut + 1 :])
    return list(rest), []


def command_words(words: Sequence[str], *, is_existing_path: Callable[[str], bool]) -> list[str]:
    """One quoted word holding spaces is a command line typed as one string; split it without a
    shell. A path to a program whose name has spaces stays whole."""
    if len(words) == 1 and any(c.isspace() for c in words[0]) and not is_existing_path(words[0]):
        return split_command_line(words[0])
    return list(words)


def parse_assignments(items: Sequence[str], *, separator: str, option: str, form: str) -> dict[str, str]:
    """`KEY=VALUE` (or `Key: Value`) pairs, values exactly as written."""
    parsed: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(separator)
        key = key.strip() if separator == ":" else key
        if not found or not key:
            typed = repr(shown_header_text(item)) if separator == ":" else repr(item)
            raise ConfigError(f"{option} {typed}: expected {form}")
        if key in parsed:
            raise ConfigError(f"{option} {key!r} is given twice; give it once")
        parsed[key] = value.lstrip() if separator == ":" else value
    return parsed


def parse_seconds(text: str, option: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"{option} {text!r}: expected a number of seconds") from None


def build_entry(request: AddRequest, *, is_existing_path: Callable[[str], bool], name: str = "NAME") -> Entry:
    """The `mcpServers` entry for one `mcp add`, not yet validated (`name`: for the advice)."""
    forms = [bool(request.command), request.url is not None, request.json_text is not None]
    if sum(forms) != 1:
        raise ConfigError(ONE_FORM)
    if request.json_text is not None:
        extras = request.env or request.cwd or request.timeout or request.startup_timeout
        if extras or request.transport or request.remote_only:
            raise ConfigError("--json takes the whole entry; put the other settings inside the JSON")
        return entry_from_json(request.json_text, request.json_source)
    if request.url is not None:
        entry = remote_entry(request.url, request)
    else:
        words = command_words(request.command, is_existing_path=is_existing_path)
        entry = stdio_entry(words, request, name=name)
    for option, key, text in (
        ("--timeout", "timeout", request.timeout),
        ("--startup-timeout", "startupTimeout", request.startup_timeout),
    ):
        if text is not None:
            entry[key] = parse_seconds(text, option)
    return entry


def remote_entry(url: str, request: AddRequest) -> Entry:
    """`{"url": …}` (Streamable HTTP) or `{"type": "sse", "url": …}`, with headers and sign-in."""
    if request.transport == "stdio":
        raise ConfigError(f"{url} is a URL; --transport stdio runs a command (a URL takes --transport http)")
    if request.env or request.cwd is not None:
        raise ConfigError("-e and --cwd are for stdio servers; an HTTP server takes --header 'Key: Value'")
    entry: Entry = {"type": "sse", "url": url} if request.transport == "sse" else {"url": url}
    headers = parse_assignments(request.headers, separator=":", option="--header", form="'Key: Value'")
    if headers:
        entry["headers"] = headers
    oauth: Entry = {}
    if request.client_id is not None:
        oauth["clientId"] = request.client_id
    if request.callback_port is not None:
        oauth["callbackPort"] = parse_port(request.callback_port)
    if oauth:
        entry["oauth"] = oauth
    return entry


def parse_port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ConfigError(f"--callback-port {text!r}: expected a port number (1-65535)")
    return int(text)


def stdio_entry(words: Sequence[str], request: AddRequest, *, name: str = "NAME") -> Entry:
    if request.transport in ("http", "sse"):
        raise ConfigError(
            f"--transport {request.transport} takes the server's URL, not a command: "
            f"levelcode mcp add --transport {request.transport} {name} https://…"
        )
    if request.remote_only:
        raise ConfigError(
            f"{', '.join(request.remote_only)}: for HTTP servers (--transport http NAME URL); "
            "a stdio server takes -e KEY=VALUE"
        )
    if is_url(words[0]):
        raise ConfigError(
            f"{words[0]} is a URL, not a command: for a remote server, "
            f"levelcode mcp add --transport http {name} {words[0]}"
        )
    entry: Entry = {"command": words[0]}
    if len(words) > 1:
        entry["args"] = list(words[1:])
    env = parse_assignments(request.env, separator="=", option="-e", form="KEY=VALUE")
    if env:
        entry["env"] = env
    if request.cwd is not None:
        entry["cwd"] = request.cwd
    return entry


def entry_from_json(text: str, source: str = "--json") -> Entry:
    """The entry in `text`; `source` names where it was typed (`--json`, ENTRY, stdin) in errors."""
    try:
        entry = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{source} is not valid JSON: {exc}") from None
    if not isinstance(entry, dict):
        raise ConfigError(
            f'{source} must be one server entry, an object such as {{"command": "npx", "args": []}}'
        )
    return entry


def validate_entry(name: str, entry: object, *, file: str, tier: Tier = "user") -> ServerSpec:
    """The spec config loading would build, or EntryRefused if loading would report anything at
    all about the entry (a problem, or a value it would ignore in this tier)."""
    key = f"{SERVERS_KEY}.{name}"
    problems: list[ConfigProblem] = []
    if isinstance(entry, Mapping) and isinstance(entry.get("type"), list | dict):
        # config.py's type check raises TypeError on an unhashable `type`; refuse it here instead.
        raise EntryRefused(name, [ConfigProblem(file, f"{key}.type", 'expected "stdio" or "http"')])
    provenance = Provenance(tier, file)
    spec = parse_server_entry(name, entry, provenance=provenance, key=key, problems=problems)
    if spec is None or problems:
        raise EntryRefused(name, problems)
    return spec


@dataclass(frozen=True)
class ServersDoc:
    """Which document an edit is for: its tier (a workspace file may be a bare map of servers)
    and how messages name it."""

    tier: Tier = "user"
    where: str = "your settings"

    def bare(self, doc: Mapping[str, Any]) -> bool:
        """A workspace file written as the bare map of servers, as config loading reads it."""
        return self.tier == "workspace" and bool(doc) and SERVERS_KEY not in doc


USER_SETTINGS = ServersDoc()


def user_servers(doc: Mapping[str, Any], of: ServersDoc = USER_SETTINGS) -> dict[str, object]:
    """The document's servers (empty when absent or null)."""
    if of.bare(doc):
        return dict(doc)
    servers = doc.get(SERVERS_KEY)
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise ConfigError(f'"{SERVERS_KEY}" in {of.where} is not an object; fix it first')
    return servers


def _with_servers(doc: Mapping[str, Any], servers: dict[str, object], of: ServersDoc) -> JsonDoc:
    if of.bare(doc):
        return dict(servers)
    new = dict(doc)
    new[SERVERS_KEY] = servers  # an existing key keeps its place; a new one goes last
    return new


def with_server(
    doc: Mapping[str, Any], name: str, entry: Entry, *, replace: bool, of: ServersDoc = USER_SETTINGS
) -> JsonDoc:
    servers = dict(user_servers(doc, of))
    if name in servers and not replace:
        raise ServerExists(f"there is already a server named {name!r} in {of.where}")
    servers[name] = entry
    return _with_servers(doc, servers, of)


def without_server(doc: Mapping[str, Any], name: str, of: ServersDoc = USER_SETTINGS) -> JsonDoc:
    servers = dict(user_servers(doc, of))
    if servers.pop(name, _MISSING) is _MISSING:
        raise ServerNotFound(f"there is no server named {name!r} in {of.where}")
    return _with_servers(doc, servers, of)


def with_disabled(
    doc: Mapping[str, Any], name: str, disabled: bool, of: ServersDoc = USER_SETTINGS
) -> JsonDoc | None:
    """`"disabled": true` set (or removed) in the user's own file; None when the entry already says so."""
    servers = dict(user_servers(doc, of))
    entry = servers.get(name, _MISSING)
    if entry is _MISSING:
        raise ServerNotFound(f"there is no server named {name!r} in {of.where}")
    if not isinstance(entry, dict):
        raise ConfigError(f"the entry for {name!r} in {of.where} is not an object; fix it first")
    if entry.get("disabled", False) is disabled:
        return None
    changed = dict(entry)
    if disabled:
        changed["disabled"] = True
    else:
        changed.pop("disabled", None)
    servers[name] = changed
    return _with_servers(doc, servers, of)


def entry_as_written(doc: object, name: str, tier: Tier) -> object:
    """A server's entry in its file's document, mirroring how config loading finds it."""
    if not isinstance(doc, Mapping):
        return None
    if tier == "organisation":  # the policy file's own servers
        required = doc.get(REQUIRED_KEY)
        return required.get(name) if isinstance(required, Mapping) else None
    wrapped = doc.get(SERVERS_KEY)
    if isinstance(wrapped, Mapping):
        return wrapped.get(name)
    return None if tier in ("user", "local") else doc.get(name)


def problems_for(problems: Sequence[ConfigProblem], name: str) -> list[ConfigProblem]:
    """The reported problems that concern the server `name` (in either file shape)."""
    keys = (f"{SERVERS_KEY}.{name}", name)
    return [p for p in problems if any(p.key == k or p.key.startswith(k + ".") for k in keys)]


_MISSING = object()
