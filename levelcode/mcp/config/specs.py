"""MCP server configuration from the two tiers, as plain data, every server with its provenance.

Pure: takes parsed JSON documents, returns specs and problems; never reads a file (config_files.py
does), never spawns. A bad entry becomes a listed problem naming file and key; good entries load.
Security-relevant keys (servers, tool policy, autopilot) are read from the user tier only. Above
both tiers, the servers an organisation's policy requires (`organisation` tier, trusted like the
user's) win every name; what the policy decides for each server rides on it (`OrgRule`,
config/managed_servers.py), outside what the launch fingerprint covers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import is_absent
from levelcode.mcp.config.allow_rules import AllowRule
from levelcode.mcp.config.client_entry import (
    DEFAULT_CLIENT_FEATURES,
    FEATURE_KEYS,
    ClientFeatureSettings,
    parse_client_features,
)
from levelcode.mcp.config.oauth_entry import OAuthEntry, parse_oauth_entry
from levelcode.mcp.config.registry_entry import REGISTRY_KEY, RegistryOrigin, parse_registry_entry
from levelcode.mcp.config.sandbox_entry import SANDBOX_KEY, SandboxRequest, parse_sandbox_entry
from levelcode.mcp.config.timeouts_entry import (
    TIMEOUTS_KEY,
    CallTimeouts,
    parse_timeouts_entry,
    positive_seconds,
)
from levelcode.mcp.config.tool_policy import POLICY_KEY, parse_tool_policy
from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy
from levelcode.policy.profiles import Profile
from levelcode.policy.settings import USER_ONLY_KEYS, Settings, ignored_key

PURE = True

# "local": the user's own servers for one workspace only (`mcp add -s local`), kept outside it.
Tier = Literal["user", "local", "workspace", "organisation"]

SERVERS_KEY = "mcpServers"

_COMMON_KEYS = frozenset({"type", "disabled", "startupTimeout", "timeout"}) | FEATURE_KEYS
# `alwaysLoad`: the server's tools stay in every request even when the others are deferred behind
# tool_search. A user's choice only: a repository may not put its tools in front of the model.
_COMMON_KEYS |= {"alwaysLoad", TIMEOUTS_KEY, REGISTRY_KEY}
_STDIO_KEYS = _COMMON_KEYS | {"command", "args", "env", "cwd", SANDBOX_KEY}
_HTTP_KEYS = _COMMON_KEYS | {"url", "headers", "oauth"}
_STDIO_TYPES = frozenset({"stdio"})
_SSE_TYPES = frozenset({"sse"})  # the legacy HTTP+SSE transport of MCP 2024-11-05
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamableHttp"}) | _SSE_TYPES


@dataclass(frozen=True)
class Provenance:
    tier: Tier
    file: str

    def describe(self) -> str:
        return f"{self.tier} · {self.file}"

    @property
    def trusted(self) -> bool:
        """Written by the user or their organisation, not by a repository: starts without asking."""
        return self.tier != "workspace"

    @property
    def own(self) -> bool:
        """Written by the user: their settings, or their servers for this workspace (local)."""
        return self.tier in ("user", "local")


@dataclass(frozen=True)
class OrgRule:
    """What the organisation's policy decided for one server (config/managed_servers.py); `said`:
    the one wording of each decision, naming the policy's file."""

    blocked: str | None = None  # why it may not start, as said ("blocked by your organisation's …")
    sandbox: str | None = None  # why it must run in the sandbox, never unconfined, as said
    sampling_off: str | None = None  # why sampling is refused whatever its entry says, as said
    required: bool = False  # the policy's own server: never disabled, removed or left out


@dataclass(frozen=True)
class StdioServerSpec:
    name: str
    command: str
    provenance: Provenance
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # as written: values are expanded only at spawn
    cwd: str | None = None
    startup_timeout: float | None = None
    timeout: float | None = None
    disabled: bool = False
    sandbox: SandboxRequest | None = None  # what its `sandbox` key asks, after the tier's rules
    client: ClientFeatureSettings = DEFAULT_CLIENT_FEATURES
    always_load: bool = False
    timeouts: CallTimeouts | None = None  # `"timeouts"`: a long call's idle limit and cap
    organisation: OrgRule | None = None  # what the organisation's policy decided, if anything
    disabled_by: str | None = None  # when disabled by a profile or for this workspace: which, as said
    registry: RegistryOrigin | None = None  # `"registry"`: the registry it was added from, as written

    @property
    def transport(self) -> Literal["stdio"]:
        return "stdio"


@dataclass(frozen=True)
class HttpServerSpec:
    name: str
    url: str
    provenance: Provenance
    headers: tuple[tuple[str, str], ...] = ()  # as written: values are expanded only at connect
    startup_timeout: float | None = None
    timeout: float | None = None
    disabled: bool = False
    legacy_sse: bool = False  # `"type": "sse"`: the 2024-11-05 HTTP+SSE transport, not Streamable HTTP
    oauth: OAuthEntry | None = None  # how to sign in, when the defaults do not fit (config/oauth_entry.py)
    client: ClientFeatureSettings = DEFAULT_CLIENT_FEATURES
    always_load: bool = False
    timeouts: CallTimeouts | None = None  # `"timeouts"`: a long call's idle limit and cap
    organisation: OrgRule | None = None  # what the organisation's policy decided, if anything
    disabled_by: str | None = None  # when disabled by a profile or for this workspace: which, as said
    registry: RegistryOrigin | None = None  # `"registry"`: the registry it was added from, as written

    @property
    def transport(self) -> Literal["http"]:
        return "http"


ServerSpec = StdioServerSpec | HttpServerSpec
# What config loading applies to each parsed server (config/launch_expansion.py): the spec with its
# launch's `${VAR}` filled in, or None with a problem added; the str is the entry's key.
ExpandSpec = Callable[[ServerSpec, str, list[ConfigProblem]], ServerSpec | None]


@dataclass(frozen=True)
class TierConfig:
    """What one file contributed: servers in written order, the tool policy, the problems found."""

    servers: tuple[ServerSpec, ...] = ()
    tool_policy: Mapping[str, str | AllowRule] = field(default_factory=dict[str, str | AllowRule])
    problems: tuple[ConfigProblem, ...] = ()


@dataclass(frozen=True)
class McpConfig:
    servers: tuple[ServerSpec, ...] = ()
    tool_policy: Mapping[str, str | AllowRule] = field(default_factory=dict[str, str | AllowRule])
    problems: tuple[ConfigProblem, ...] = ()
    settings: Settings | None = None  # the settings it was read with (once per session), when read
    managed: ManagedPolicy = NO_POLICY  # the organisation's policy it was read under
    profile: str | None = None  # the profile whose servers it starts (None: all of them)
    profiles: Mapping[str, Profile] = field(default_factory=dict[str, Profile])  # the settings', parsed

    def server(self, name: str) -> ServerSpec | None:
        return next((spec for spec in self.servers if spec.name == name), None)


def parse_user_settings(doc: object, *, file: str, expand: ExpandSpec | None = None) -> TierConfig:
    """The user tier: `mcpServers` and `mcpToolPolicy` from the user's own settings.json."""
    if is_absent(doc):
        return TierConfig()
    if not isinstance(doc, Mapping):
        return TierConfig(problems=(ConfigProblem(file, "(top level)", "expected a JSON object"),))
    return parse_user_tier(doc.get(SERVERS_KEY), doc.get(POLICY_KEY), file=file, expand=expand)


def parse_user_tier(
    servers: object, policy: object, *, file: str, expand: ExpandSpec | None = None
) -> TierConfig:
    """The user tier from its two values as written (Settings.mcp_servers, Settings.mcp_tool_policy)."""
    provenance = Provenance("user", file)
    specs, problems = parse_server_map(servers, provenance=provenance, key=SERVERS_KEY, expand=expand)
    rules, policy_problems = parse_tool_policy(policy, file=file)
    return TierConfig(tuple(specs), rules, tuple(problems + policy_problems))


def parse_workspace_file(doc: object, *, file: str, expand: ExpandSpec | None = None) -> TierConfig:
    """A repository's `.levelcode/mcp.json` or `.mcp.json`: `{"mcpServers": {…}}` or a bare map."""
    if is_absent(doc):
        return TierConfig()
    if not isinstance(doc, Mapping):
        return TierConfig(problems=(ConfigProblem(file, "(top level)", "expected a JSON object"),))
    provenance = Provenance("workspace", file)
    wrapped = doc.get(SERVERS_KEY)
    if isinstance(wrapped, Mapping) or (wrapped is None and SERVERS_KEY in doc):
        problems = [
            ignored_key(file, key)
            if key in USER_ONLY_KEYS
            else ConfigProblem(file, key, "unknown key, ignored")
            for key in doc
            if key != SERVERS_KEY
        ]
        servers, server_problems = parse_server_map(
            wrapped, provenance=provenance, key=SERVERS_KEY, expand=expand
        )
        return TierConfig(tuple(servers), {}, tuple(problems + server_problems))
    servers, problems = parse_server_map(doc, provenance=provenance, key="", expand=expand)
    return TierConfig(tuple(servers), {}, tuple(problems))


def merge_tiers(
    user: TierConfig,
    workspace: Sequence[TierConfig],
    extra: Sequence[ConfigProblem] = (),
    *,
    organisation: TierConfig | None = None,
) -> McpConfig:
    """The organisation's required servers first, then the user's, then the workspace's; a server
    whose name is taken loses, and the collision is reported."""
    first = organisation or TierConfig()
    servers = list(first.servers)
    problems = list(first.problems)
    owners = {spec.name: spec.provenance for spec in servers}
    for tier in [user, *workspace]:
        problems.extend(tier.problems)
        for spec in tier.servers:
            owner = owners.get(spec.name)
            if owner is None:
                owners[spec.name] = spec.provenance
                servers.append(spec)
                continue
            message = f"server name already defined in {owner.describe()}; this entry is ignored"
            problems.append(ConfigProblem(spec.provenance.file, _server_key(SERVERS_KEY, spec.name), message))
    problems.extend(extra)
    return McpConfig(tuple(servers), dict(user.tool_policy), tuple(problems))


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
        where = _server_key(key, str(name))
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


def _server_key(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


# The launch fingerprint (launch/trust.py) hashes this text: changing the scheme re-asks every approval.
LAUNCH_ENCODING_SCHEME = "levelcode-launch/1"


def launch_encoding(spec: ServerSpec) -> str:
    """The canonical text the fingerprint hashes: a JSON array, one slot per part of the launch."""
    if isinstance(spec, HttpServerSpec):
        parts: list[object] = ["http", spec.url, sorted([k, v] for k, v in spec.headers)]
        if spec.oauth is not None:  # only when written, so the fingerprints of entries without it stay
            parts.append(spec.oauth.encoded())
    else:
        parts = ["stdio", spec.command, list(spec.args), sorted([k, v] for k, v in spec.env), spec.cwd]
        if spec.sandbox is not None:  # only when present: approvals given before the key stay valid
            parts.append([SANDBOX_KEY, spec.sandbox.as_json()])
    return json.dumps([LAUNCH_ENCODING_SCHEME, *parts], ensure_ascii=False, separators=(",", ":"))


def entry_fingerprint(spec: ServerSpec) -> str:
    """The launch fingerprint of the entry's text (SHA-256 of `launch_encoding`): what the trust
    store keys a launch on before the facts of what it runs, and what an organisation's policy
    names a launch by."""
    return hashlib.sha256(launch_encoding(spec).encode("utf-8", "surrogatepass")).hexdigest()
