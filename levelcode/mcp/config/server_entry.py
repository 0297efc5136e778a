"""One server entry of a configuration file parsed into a spec, and a file's map of them: a bad
entry is a listed problem naming file and key, a bad value is reported and its default used, and
the good entries still load.

Pure: takes parsed JSON values, returns specs and problems; never reads a file, never spawns, and
never weighs one file against another (tiers.py does).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.config.client_entry import FEATURE_KEYS, parse_client_features
from levelcode.mcp.config.oauth_entry import parse_oauth_entry
from levelcode.mcp.config.registry_entry import REGISTRY_KEY, RegistryOrigin, parse_registry_entry
from levelcode.mcp.config.sandbox_entry import SANDBOX_KEY, parse_sandbox_entry
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, ServerSpec, StdioServerSpec
from levelcode.mcp.config.timeouts_entry import (
    TIMEOUTS_KEY,
    CallTimeouts,
    parse_timeouts_entry,
    positive_seconds,
)

PURE = True

_COMMON_KEYS = frozenset({"type", "disabled", "startupTimeout", "timeout"}) | FEATURE_KEYS
# `alwaysLoad`: the server's tools stay in every request even when the others are deferred behind
# tool_search. A user's choice only: a repository may not put its tools in front of the model.
_COMMON_KEYS |= {"alwaysLoad", TIMEOUTS_KEY, REGISTRY_KEY}
_STDIO_KEYS = _COMMON_KEYS | {"command", "args", "env", "cwd", SANDBOX_KEY}
_HTTP_KEYS = _COMMON_KEYS | {"url", "headers", "oauth"}
_STDIO_TYPES = frozenset({"stdio"})
_SSE_TYPES = frozenset({"sse"})  # the legacy HTTP+SSE transport of MCP 2024-11-05
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamableHttp"}) | _SSE_TYPES

# What config loading applies to each parsed server (config/launch_expansion.py): the spec with its
# launch's `${VAR}` filled in, or None with a problem added; the str is the entry's key.
ExpandSpec = Callable[[ServerSpec, str, list[ConfigProblem]], ServerSpec | None]


def parse_server_map(
    raw: object, *, provenance: Provenance, key: str, expand: ExpandSpec | None = None
) -> tuple[list[ServerSpec], list[ConfigProblem]]:
    """The servers of one file, each parsed, then (`expand`: config/launch_expansion.py) with the
    `${VAR}` of its launch filled in, or dropped with a problem."""
    if raw is None:
        return [], []
    if not isinstance(raw, Mapping):
        message = "expected an object of servers"
        return [], [ConfigProblem(provenance.file, key or "(top level)", message, not_loaded=True)]
    servers: list[ServerSpec] = []
    problems: list[ConfigProblem] = []
    for name, entry in raw.items():
        where = server_key(key, str(name))
        spec = parse_server_entry(str(name), entry, provenance=provenance, key=where, problems=problems)
        if spec is not None and expand is not None:
            spec = expand(spec, where, problems)
        if spec is not None:
            servers.append(spec)
    return servers, problems


def parse_server_entry(
    name: str, entry: object, *, provenance: Provenance, key: str, problems: list[ConfigProblem]
) -> ServerSpec | None:
    """One server entry, or None (with a problem appended) when it cannot be used."""
    report = _Reporter(provenance.file, key, problems)
    if not name.strip():
        report.fail("", "server name must not be empty")
        return None
    if not isinstance(entry, Mapping):
        report.fail("", "expected an object with `command` (stdio) or `url` (HTTP)")
        return None
    kind = _transport_kind(entry, report)
    if kind is None:
        return None
    known = _STDIO_KEYS if kind == "stdio" else _HTTP_KEYS
    for unknown in sorted(str(k) for k in entry if k not in known):
        report.note(unknown, _unknown_key(unknown))
    if kind == "stdio":
        return _parse_stdio(name, entry, provenance, report)
    return _parse_http(name, entry, provenance, report)


class _Reporter:
    """Appends problems for one entry, keyed under its path."""

    def __init__(self, file: str, key: str, problems: list[ConfigProblem]) -> None:
        self.file, self.key, self.problems = file, key, problems

    def note(self, sub: str, message: str, *, not_loaded: bool = False) -> None:
        key = f"{self.key}.{sub}" if sub else self.key
        self.problems.append(ConfigProblem(self.file, key, message, not_loaded=not_loaded))

    def fail(self, sub: str, message: str) -> None:
        self.note(sub, message + "; this server is not loaded", not_loaded=True)


def _transport_kind(entry: Mapping[object, object], report: _Reporter) -> Literal["stdio", "http"] | None:
    declared = entry.get("type")
    if declared is not None and (not isinstance(declared, str) or declared not in _STDIO_TYPES | _HTTP_TYPES):
        report.fail("type", f'expected "stdio", "http" or "sse"; got {declared!r}')
        return None
    has_command, has_url = "command" in entry, "url" in entry
    if has_command and has_url:
        report.fail("", "has both `command` and `url`; a server is either stdio or HTTP")
        return None
    if has_url or declared in _HTTP_TYPES:
        return "http"
    if has_command or declared in _STDIO_TYPES:
        return "stdio"
    report.fail("", "needs `command` (a stdio server) or `url` (an HTTP server)")
    return None


def _parse_stdio(
    name: str, entry: Mapping[object, object], provenance: Provenance, report: _Reporter
) -> StdioServerSpec | None:
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        report.fail("command", "must be a non-empty string")
        return None
    args = _string_list(entry.get("args", []))
    if args is None:
        report.fail("args", "must be a list of strings")
        return None
    env = _string_map(entry.get("env", {}))
    if env is None:
        report.fail("env", "must be an object whose values are strings")
        return None
    cwd = entry.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd):
        report.fail("cwd", "must be a non-empty string")
        return None
    tuning = _tuning(entry, provenance, report)
    sandbox = parse_sandbox_entry(
        entry.get(SANDBOX_KEY),
        repository=provenance.tier == "workspace",
        note=lambda sub, message: report.note(f"{SANDBOX_KEY}.{sub}" if sub else SANDBOX_KEY, message),
    )
    return StdioServerSpec(
        name=name,
        command=command,
        provenance=provenance,
        args=tuple(args),
        env=tuple(env),
        cwd=cwd,
        startup_timeout=tuning.startup_timeout,
        timeout=tuning.timeout,
        disabled=tuning.disabled,
        sandbox=sandbox,
        client=parse_client_features(entry, tier=provenance.tier, note=report.note),
        always_load=tuning.always_load,
        timeouts=tuning.timeouts,
        registry=tuning.registry,
    )


def _parse_http(
    name: str, entry: Mapping[object, object], provenance: Provenance, report: _Reporter
) -> HttpServerSpec | None:
    url = entry.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://", "${")):
        report.fail("url", "must be an http:// or https:// URL")  # or a ${VAR} that holds one
        return None
    headers = _string_map(entry.get("headers", {}))
    if headers is None:
        report.fail("headers", "must be an object whose values are strings")
        return None
    tuning = _tuning(entry, provenance, report)
    return HttpServerSpec(
        name=name,
        url=url,
        provenance=provenance,
        headers=tuple(headers),
        startup_timeout=tuning.startup_timeout,
        timeout=tuning.timeout,
        disabled=tuning.disabled,
        legacy_sse=entry.get("type") in _SSE_TYPES,
        oauth=parse_oauth_entry(entry.get("oauth"), report.note),
        client=parse_client_features(entry, tier=provenance.tier, note=report.note),
        always_load=tuning.always_load,
        timeouts=tuning.timeouts,
        registry=tuning.registry,
    )


def _unknown_key(key: str) -> str:
    if key == SANDBOX_KEY:  # a remote server runs elsewhere: there is no process to confine
        return "only a stdio server (a local process) can run in the sandbox; ignored"
    return "unknown key, ignored"


class _Tuning(NamedTuple):
    startup_timeout: float | None
    timeout: float | None
    disabled: bool
    always_load: bool = False
    timeouts: CallTimeouts | None = None
    registry: RegistryOrigin | None = None


def _tuning(entry: Mapping[object, object], provenance: Provenance, report: _Reporter) -> _Tuning:
    """Timeouts (`startupTimeout`, `timeout`, `timeouts`), `disabled`, `alwaysLoad` and the
    `registry` origin: a bad value is reported and the default used, the server still loads."""
    return _Tuning(
        positive_seconds(entry.get("startupTimeout"), "startupTimeout", report.note),
        positive_seconds(entry.get("timeout"), "timeout", report.note),
        _flag(entry, "disabled", report),
        _always_load(entry, provenance, report),
        parse_timeouts_entry(
            entry.get(TIMEOUTS_KEY),
            lambda sub, message: report.note(f"{TIMEOUTS_KEY}.{sub}" if sub else TIMEOUTS_KEY, message),
        ),
        parse_registry_entry(
            entry.get(REGISTRY_KEY),
            lambda sub, message: report.note(f"{REGISTRY_KEY}.{sub}" if sub else REGISTRY_KEY, message),
        ),
    )


def _flag(entry: Mapping[object, object], key: str, report: _Reporter) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        report.note(key, f"must be true or false; got {value!r}, treating it as false")
        return False
    return value


def _always_load(entry: Mapping[object, object], provenance: Provenance, report: _Reporter) -> bool:
    wanted = _flag(entry, "alwaysLoad", report)
    if wanted and not provenance.trusted:
        report.note("alwaysLoad", "ignored: only your user settings may set this")
        return False
    return wanted


def _string_list(value: object) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return [str(item) for item in value]


def _string_map(value: object) -> list[tuple[str, str]] | None:
    if value is None:
        return []
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        return None
    return [(str(k), str(v)) for k, v in value.items()]


def server_key(prefix: str, name: str) -> str:
    """Where an entry sits in its file, as a problem names it (`mcpServers.name`, or `name` in a bare map)."""
    return f"{prefix}.{name}" if prefix else name
