"""`levelcode mcp search TEXT` and `levelcode mcp add … --from-registry`: find a server in the MCP
Registry, and add it as an entry that runs exactly the version listed, sandboxed, with its secrets
as `${VAR}` references — written by the same writer as every `mcp add` (cli/mcp/add.py's
`write_server`, which `mcp add` hands in).

Wiring only: which registry (mcp/config/registry_source.py), asking it (mcp/registry/client.py),
making the entry (mcp/registry/entry.py, remote_entry.py), and the words. Registry text is
third-party: every line goes out through `say`, which escapes control characters. A registry that
answers badly gets one line, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core.errors import ConfigError, RegistryError
from levelcode.mcp.config.edit import AddRequest, Entry, parse_seconds
from levelcode.mcp.config.expanded_fields import variables_received
from levelcode.mcp.config.registry_entry import SERVER_NAME, RegistryOrigin
from levelcode.mcp.config.registry_source import RegistryChoice, choose_registry
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.registry.client import RegistryClient
from levelcode.mcp.registry.documents import Package, ServerRecord, mentions
from levelcode.mcp.registry.entry import Made, choose, package_entry
from levelcode.mcp.registry.inputs import INPUT_FLAG, Filler, Need, parse_given
from levelcode.mcp.registry.remote_entry import remote_entry
from levelcode.mcp.registry.rules import checked_answer
from levelcode.platform.settings_files import load_settings

MAX_DESCRIPTION = 200  # characters of a registry's description shown per result
NOT_WITH_REGISTRY = {
    "-- COMMAND": "command",
    "--url": "url",
    "--json": "json_text",
    "-e": "env",
    "--header": "headers",
    "--cwd": "cwd",
    "--client-id": "client_id",
    "--callback-port": "callback_port",
}


def registry_choice(args: argparse.Namespace, asked: str | None) -> RegistryChoice:
    settings = load_settings(workspace_of(args))
    return choose_registry(settings, asked)


# --- mcp search ----------------------------------------------------------------------------------


def mcp_search(args: argparse.Namespace) -> int:
    text = (args.text or "").strip()
    if args.limit < 1:
        return fail("--limit: expected a number of servers, 1 or more", 2)
    try:
        choice = registry_choice(args, args.registry)
        words = text.lower().split()
        with RegistryClient(choice.url) as client:
            found = client.search(
                None if args.describe else text or None,
                want=None if args.all else args.limit,
                keep=(lambda record: mentions(record, words)) if args.describe else None,
            )
    except ConfigError as exc:
        return fail(exc, 2)
    except RegistryError as exc:
        return fail(exc, 1)
    records = [r for r in found.records if r.status != "deleted"]
    if args.json:
        print(
            json.dumps(
                {"registry": choice.url, "servers": [_record_json(r) for r in records], "more": found.more}
            )
        )
        return 0
    say(*[line for record in records for line in _record_lines(record)])
    say(
        *_search_footer(
            text, args, choice=choice, shown=len(records), more=found.more, unreadable=found.unreadable
        )
    )
    return 0


def _kinds(record: ServerRecord) -> str:
    local = sorted({p.registry_type for p in record.server.packages})
    remote = sorted({r.transport for r in record.server.remotes})
    parts = ([f"local: {', '.join(local)}"] if local else []) + (
        [f"remote: {', '.join(remote)}"] if remote else []
    )
    return " · ".join(parts) or "nothing to run"


def _record_lines(record: ServerRecord) -> list[str]:
    server = record.server
    status = _status_words(record)
    about = f"{server.title} — {server.description}" if server.title else server.description
    return [
        f"{server.name}  {server.version}  ({_kinds(record)}){' · ' + status if status else ''}",
        f"    {about[:MAX_DESCRIPTION]}",
        f"    add: levelcode mcp add {server.name} --from-registry",
    ]


def _status_words(record: ServerRecord) -> str:
    """`deprecated: use v2`; "" for an active server (or a registry that does not say)."""
    if record.status in (None, "active"):
        return ""
    return f"{record.status}: {record.status_message}" if record.status_message else str(record.status)


def _search_footer(
    text: str,
    args: argparse.Namespace,
    *,
    choice: RegistryChoice,
    shown: int,
    more: bool,
    unreadable: tuple[str, ...],
) -> list[str]:
    what = f'matching "{text}"' if text else "listed"
    where = "in the name, title or description" if args.describe and text else ""
    lines = [
        f"{shown} server{'s' if shown != 1 else ''} {what}{' ' + where if where else ''} at {choice.url}"
    ]
    if more:
        lines.append(f"more match: show more with --limit {args.limit * 2}, or all with --all")
    if not shown and text and not args.describe:
        lines.append("the registry matches names only; to look in descriptions too, add --describe")
    if unreadable:
        lines.append(
            f"{len(unreadable)} the registry sent could not be read and are left out ({unreadable[0]})"
        )
    return lines


def _record_json(record: ServerRecord) -> dict[str, object]:
    server = record.server
    return {
        "name": server.name,
        "title": server.title,
        "description": server.description,
        "version": server.version,
        "packages": sorted({p.registry_type for p in server.packages}),
        "remotes": sorted({r.transport for r in server.remotes}),
        "status": record.status,
        "add": f"levelcode mcp add {server.name} --from-registry",
    }


# --- mcp add … --from-registry -------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    local: str  # the name the entry gets in your settings
    server: str  # the registry's name
    version: str  # exact, or "latest"


def registry_reference(name: str, written: str | None) -> Reference:
    """`NAME --from-registry` (NAME is the registry's server) or `NAME --from-registry SERVER`,
    either with `@VERSION`."""
    wanted = written or name
    server, at, version = wanted.rpartition("@") if "@" in wanted else (wanted, "", "")
    if not SERVER_NAME.match(server):
        raise ConfigError(
            f"{wanted!r} is not a registry server name such as io.github.owner/server[@1.2.3]; "
            "find one with: levelcode mcp search TEXT"
        )
    if at and not version:
        raise ConfigError(f"{wanted!r}: give a version after @, or leave the @ out for the latest")
    local = name if written else server.rsplit("/", 1)[1]
    return Reference(local, server, version or "latest")


class WriteServer(Protocol):
    """cli/mcp/add.py's `write_server`: the one writer of every `mcp add` (passed in, not imported,
    so that mcp_add, which hands `--from-registry` here, and this module do not import each other)."""

    def __call__(
        self,
        args: argparse.Namespace,
        name: str,
        entry: Entry,
        *,
        replace: bool,
        scope: str | None,
        about: Callable[[ServerSpec], list[str]],
    ) -> int: ...


def add_from_registry(
    args: argparse.Namespace, request: AddRequest, *, replace: bool, scope: str | None, write: WriteServer
) -> int:
    try:
        _only_registry_options(request)
        reference = registry_reference(args.name, request.from_registry)
        choice = registry_choice(args, request.registry)
        with RegistryClient(choice.url) as client:
            record = client.version(reference.server, reference.version)
        server = record.server
        checked_answer(reference.server, reference.version, server.name, server.version, record.status)
        filler = Filler(parse_given(request.inputs), ask=_terminal_ask(server.name))
        made = _made(record, request, RegistryOrigin(choice.url, server.name, server.version), filler)
    except ConfigError as exc:
        return fail(exc, 2)
    except RegistryError as exc:
        return fail(exc, 1)
    return write(
        args,
        reference.local,
        made.entry,
        replace=replace,
        scope=scope,
        about=lambda spec: _about(record, made, filler, spec),
    )


def _only_registry_options(request: AddRequest) -> None:
    if request.from_registry is None:
        raise ConfigError(
            f"{INPUT_FLAG} and --registry are for a server from the MCP Registry: add --from-registry"
        )
    given = [flag for flag, field in NOT_WITH_REGISTRY.items() if getattr(request, field)]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: --from-registry makes the whole entry from the registry's server; "
            f"give the values it asks for with {INPUT_FLAG} KEY=VALUE"
        )


def _made(record: ServerRecord, request: AddRequest, origin: RegistryOrigin, filler: Filler) -> Made:
    server = record.server
    picked = choose(server, request.transport)
    if isinstance(picked, Package):
        made = package_entry(server, picked, filler, origin)
    else:
        made = remote_entry(server, picked, filler, origin)
    if filler.missing:
        raise filler.missing_error(server.name)
    unknown = sorted(set(filler.given) - filler.used)
    if unknown:
        takes = ", ".join(sorted(filler.used)) or "no values"
        raise ConfigError(
            f"{INPUT_FLAG} {unknown[0]}: {server.name} asks for no such value (it takes: {takes})"
        )
    for option, key, text in (
        ("--timeout", "timeout", request.timeout),
        ("--startup-timeout", "startupTimeout", request.startup_timeout),
    ):
        if text is not None:
            made.entry[key] = parse_seconds(text, option)
    return made


def _about(record: ServerRecord, made: Made, filler: Filler, spec: ServerSpec) -> list[str]:
    """What the user should know of the entry: where it came from, its confinement, the secrets
    it reads from the environment, values taken as defaults or left out."""
    from levelcode.mcp.launch.server_box import server_box
    from levelcode.ui.mcp_words import confinement_words

    origin = spec.registry
    lines = [f"  from:    {origin.describe()}"] if origin else []
    if _status_words(record):
        lines.append(f"  note:    the registry says: {_status_words(record)}")
    if isinstance(spec, StdioServerSpec) and spec.sandbox is not None:
        lines.append(f"  sandbox: {confinement_words(server_box(spec), spec.provenance.tier, None)}")
    lines += [f"  note:    {note}" for note in made.notes]
    lines += _secret_lines(spec)
    lines += [
        f"  default: {need.key}={value} (change with {INPUT_FLAG} {need.key}=VALUE --replace)"
        for need, value in filler.defaulted
    ]
    if filler.skipped:
        keys = ", ".join(need.key for need in filler.skipped[:8]) + (" …" if len(filler.skipped) > 8 else "")
        how = f"set one with {INPUT_FLAG} KEY=VALUE --replace"
        lines.append(f"  left out: {len(filler.skipped)} optional value(s): {keys} ({how})")
    return lines


def _secret_lines(spec: ServerSpec) -> list[str]:
    lines = []
    for name, field in variables_received(spec):
        state = (
            "set in this shell" if os.environ.get(name) else f"not set now: export {name}=… before it starts"
        )
        lines.append(
            f"  secret:  {field.label} is read from ${{{name}}} in your environment when it starts ({state})"
        )
    return lines


def _terminal_ask(server: str) -> Callable[[Need, str | None], str | None] | None:
    """Ask on the terminal for each value the server needs; None when there is none to ask on."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(need: Need, problem: str | None) -> str | None:
        about = need.input.description.strip()[:MAX_DESCRIPTION]
        if problem is not None:
            say(f"  {problem}", err=True)
        elif need.secret:
            say(
                f"{server} needs a secret, {need.label}{': ' + about if about else ''}",
                "  LevelCode writes only the name of the environment variable holding it, never the secret.",
                err=True,
            )
        else:
            say(f"{server} needs {need.label}{': ' + about if about else ''}", err=True)
        if need.secret:
            prompt = f"  variable [{need.reference}]: "
        else:
            choices = f" ({' | '.join(need.input.choices)})" if need.input.choices else ""
            prompt = f"  {need.key}{choices}{' [' + need.input.default + ']' if need.input.default else ''}: "
        from levelcode.ui.visible import visible

        sys.stderr.write(visible(prompt))  # the key and default are the registry's text
        sys.stderr.flush()
        line = sys.stdin.readline()
        return line.rstrip("\n") if line else None

    return ask
