"""The MCP Registry's answers as small types: a page of servers (`GET /v0.1/servers`, with
`metadata.nextCursor`), one server version (`GET /v0.1/servers/{name}/versions/{version}`), and
inside each the `server.json` — packages with their arguments and environment, remotes with their
headers and URL variables — and the registry's own `_meta` (status, publishedAt, isLatest).

Pure: parsed JSON in, frozen dataclasses out. Registry answers are third-party input: every field
is checked for its type, and anything off raises `RegistryError` naming where (`packages[0].
identifier`); fields LevelCode does not use are ignored, so a newer registry still parses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from levelcode.core.errors import RegistryError
from levelcode.mcp.config.registry_entry import SERVER_NAME

PURE = True

OFFICIAL_META = "io.modelcontextprotocol.registry/official"
MAX_VARIABLES = 64  # inputs of one value; a registry answer is untrusted, its lists are bounded
MAX_ITEMS = 256  # packages, remotes, arguments, environment variables, headers of one server

_T = TypeVar("_T")
_Parser = Callable[[Mapping[str, object], str], _T]


@dataclass(frozen=True)
class Input:
    """A value the server needs: fixed (`value`, which may hold `{variable}`s) or given by the user."""

    description: str = ""
    required: bool = False
    secret: bool = False
    default: str | None = None
    value: str | None = None
    choices: tuple[str, ...] = ()
    format: str = "string"  # string, number, boolean, filepath
    variables: Mapping[str, Input] = field(default_factory=dict[str, "Input"])


@dataclass(frozen=True)
class Argument:
    """A command-line argument: `positional` (a word) or `named` (`--flag` and its value)."""

    kind: Literal["positional", "named"]
    input: Input
    name: str | None = None  # named: the flag as written, dashes included
    value_hint: str | None = None  # positional: what names it (the key a user gives it by)
    repeated: bool = False


@dataclass(frozen=True)
class KeyValue:
    """An environment variable or an HTTP header, by name."""

    name: str
    input: Input


@dataclass(frozen=True)
class Package:
    registry_type: str  # npm, pypi, oci, nuget, mcpb, cargo, go, …
    identifier: str
    version: str | None = None
    registry_base_url: str | None = None
    runtime_hint: str | None = None
    transport: str = "stdio"
    runtime_arguments: tuple[Argument, ...] = ()
    package_arguments: tuple[Argument, ...] = ()
    environment: tuple[KeyValue, ...] = ()


@dataclass(frozen=True)
class Remote:
    transport: str  # streamable-http or sse
    url: str  # may hold `{variable}`s, filled from `variables`
    headers: tuple[KeyValue, ...] = ()
    variables: Mapping[str, Input] = field(default_factory=dict[str, Input])


@dataclass(frozen=True)
class ServerDetail:
    """One version of one server: its `server.json`."""

    name: str
    version: str
    description: str = ""
    title: str | None = None
    packages: tuple[Package, ...] = ()
    remotes: tuple[Remote, ...] = ()
    repository: str | None = None
    website: str | None = None


@dataclass(frozen=True)
class ServerRecord:
    """A server version as the registry serves it, with what the registry itself says of it."""

    server: ServerDetail
    status: str | None = None  # active, deprecated, deleted
    status_message: str | None = None
    published_at: str | None = None
    is_latest: bool | None = None


@dataclass(frozen=True)
class ServerPage:
    records: tuple[ServerRecord, ...]
    next_cursor: str | None = None
    unreadable: tuple[str, ...] = ()  # why each record left out of the page could not be read


def parse_page(doc: object) -> ServerPage:
    """A list answer. A record that cannot be read is left out and said why; a page whose shape
    is wrong raises."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("servers"), list):
        raise RegistryError('the registry\'s answer is not a list of servers ({"servers": [...]})')
    records: list[ServerRecord] = []
    unreadable: list[str] = []
    for index, item in enumerate(doc["servers"][: MAX_ITEMS * 4]):
        try:
            records.append(parse_record(item))
        except RegistryError as exc:
            unreadable.append(f"servers[{index}]: {exc}")
    return ServerPage(tuple(records), _next_cursor(doc.get("metadata")), tuple(unreadable))


def _next_cursor(metadata: object) -> str | None:
    if not isinstance(metadata, Mapping):
        return None
    cursor = metadata.get("nextCursor", metadata.get("next_cursor"))  # older registries: snake case
    return cursor if isinstance(cursor, str) and cursor else None


def parse_record(doc: object) -> ServerRecord:
    """One `{"server": {...}, "_meta": {...}}`."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("server"), Mapping):
        raise RegistryError('expected {"server": {...}} for each server')
    meta = doc.get("_meta")
    official = meta.get(OFFICIAL_META) if isinstance(meta, Mapping) else None
    official = official if isinstance(official, Mapping) else {}
    latest = official.get("isLatest")
    return ServerRecord(
        parse_server(doc["server"]),
        status=_optional_text(official, "status"),
        status_message=_optional_text(official, "statusMessage"),
        published_at=_optional_text(official, "publishedAt"),
        is_latest=latest if isinstance(latest, bool) else None,
    )


def parse_server(doc: Mapping[str, object]) -> ServerDetail:
    name = doc.get("name")
    if not isinstance(name, str) or not SERVER_NAME.match(name) or len(name) > 200:
        raise RegistryError(f"its name {name!r} is not a registry server name (namespace/name)")
    version = doc.get("version")
    if not isinstance(version, str) or not version.strip() or len(version) > 255:
        raise RegistryError(f"{name}: its version {version!r} is not a version")
    repository = doc.get("repository")
    return ServerDetail(
        name=name,
        version=version,
        description=_optional_text(doc, "description") or "",
        title=_optional_text(doc, "title"),
        packages=tuple(_each(doc, "packages", _package, name)),
        remotes=tuple(_each(doc, "remotes", _remote, name)),
        repository=_optional_text(repository, "url") if isinstance(repository, Mapping) else None,
        website=_optional_text(doc, "websiteUrl"),
    )


def _each(doc: Mapping[str, object], key: str, parse: _Parser[_T], where: str) -> list[_T]:
    raw = doc.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_ITEMS:
        raise RegistryError(f"{where}: {key} is not a list (of at most {MAX_ITEMS})")
    found = []
    for index, item in enumerate(raw):
        here = f"{where}: {key}[{index}]"
        if not isinstance(item, Mapping):
            raise RegistryError(f"{here} is not an object")
        found.append(parse(item, here))
    return found


def _package(doc: Mapping[str, object], where: str) -> Package:
    transport = doc.get("transport")
    kind = transport.get("type") if isinstance(transport, Mapping) else transport
    return Package(
        registry_type=_text(doc, "registryType", where).lower(),
        identifier=_text(doc, "identifier", where),
        version=_optional_text(doc, "version", where),
        registry_base_url=_optional_text(doc, "registryBaseUrl", where),
        runtime_hint=_optional_text(doc, "runtimeHint", where),
        transport=kind if isinstance(kind, str) else "stdio",
        runtime_arguments=tuple(_each(doc, "runtimeArguments", _argument, where)),
        package_arguments=tuple(_each(doc, "packageArguments", _argument, where)),
        environment=tuple(_each(doc, "environmentVariables", _key_value, where)),
    )


def _remote(doc: Mapping[str, object], where: str) -> Remote:
    kind = doc.get("type", doc.get("transport_type"))
    if not isinstance(kind, str):
        raise RegistryError(f"{where}: type is not a string")
    return Remote(
        transport=kind,
        url=_text(doc, "url", where),
        headers=tuple(_each(doc, "headers", _key_value, where)),
        variables=_variables(doc.get("variables"), f"{where}.variables"),
    )


def _argument(doc: Mapping[str, object], where: str) -> Argument:
    kind = doc.get("type")
    if kind not in ("positional", "named"):
        raise RegistryError(f"{where}: type {kind!r} is neither positional nor named")
    repeated = doc.get("isRepeated", False)
    given = _input(doc, where)
    hint = _optional_text(doc, "valueHint", where)
    if doc.get("isFixed") is True and given.value is None and hint is not None:
        given = dataclasses.replace(given, value=hint)  # seen in published entries: the hint is the word
    argument = Argument(
        kind="named" if kind == "named" else "positional",
        input=given,
        name=_optional_text(doc, "name", where),
        value_hint=hint,
        repeated=repeated is True,
    )
    if argument.kind == "named" and argument.name is None:
        raise RegistryError(f"{where}: a named argument without a name")
    if argument.kind == "positional" and argument.input.value is None and argument.value_hint is None:
        raise RegistryError(f"{where}: a positional argument with neither a value nor a valueHint")
    return argument


def _key_value(doc: Mapping[str, object], where: str) -> KeyValue:
    return KeyValue(_text(doc, "name", where), _input(doc, where))


def _input(doc: Mapping[str, object], where: str, *, nested: bool = False) -> Input:
    choices = doc.get("choices", [])
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        raise RegistryError(f"{where}: choices is not a list of strings")
    return Input(
        description=_optional_text(doc, "description", where) or "",
        required=doc.get("isRequired") is True,
        secret=doc.get("isSecret") is True,
        default=_optional_text(doc, "default", where),
        value=_optional_text(doc, "value", where),
        choices=tuple(str(c) for c in choices[:MAX_ITEMS]),
        format=_optional_text(doc, "format", where) or "string",
        variables={} if nested else _variables(doc.get("variables"), f"{where}.variables"),
    )


def _variables(raw: object, where: str) -> dict[str, Input]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or len(raw) > MAX_VARIABLES:
        raise RegistryError(f"{where} is not an object of at most {MAX_VARIABLES} inputs")
    found: dict[str, Input] = {}
    for name, item in raw.items():
        if not isinstance(item, Mapping):
            raise RegistryError(f"{where}.{name} is not an object")
        found[str(name)] = _input(item, f"{where}.{name}", nested=True)
    return found


def _text(doc: Mapping[str, object], key: str, where: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value:
        raise RegistryError(f"{where}: {key} is missing or not a string")
    return value


def _optional_text(doc: Mapping[str, object], key: str, where: str = "") -> str | None:
    """The string at `key`, None when absent; raises for another type (only where `where` names
    a place: the registry's `_meta` and such are read leniently)."""
    value = doc.get(key)
    if value is None or isinstance(value, str):
        return value
    if where:
        raise RegistryError(f"{where}: {key} is not a string")
    return None


def mentions(record: ServerRecord, words: list[str]) -> bool:
    """Whether every word (lower case) is in the server's name, title or description."""
    server = record.server
    text = " ".join((server.name, server.title or "", server.description)).lower()
    return all(word in text for word in words)
