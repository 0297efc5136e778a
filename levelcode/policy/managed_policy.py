"""The organisation's policy: what a platform team decides for every LevelCode on a machine — which
MCP servers may run (allowed, denied, required, only those from its own MCP Registry), whether
they must run in the sandbox, tool rules no user can loosen, sampling, autopilot and the network —
parsed from its file, with the one wording of "your organisation decided".

Pure: a parsed JSON document in, a `ManagedPolicy` out; never reads a file (platform/managed_file.py does)
and never judges one server (mcp/config/managed_servers.py does). All or nothing: any mistake in
the file (bad JSON, an unknown key, a value of the wrong kind) and the policy is *closed* — no MCP
server starts, autopilot, the network and sampling are off — because a policy read in part could
let through exactly what its unread part forbids. Only a missing file means "no policy": a file
that is there but empty, blank, `null` or any JSON but an object is a mistake like bad JSON (a
deployment that failed half-way, or someone who could write it, must not lift every rule).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import parse_json_text
from levelcode.policy.network_hosts import parse_host_entry

PURE = True

SandboxScope = Literal["none", "repository", "all"]  # which servers must run in the sandbox
ToolRule = Literal["deny", "ask"]
SANDBOX_SCOPES: tuple[SandboxScope, ...] = ("repository", "all")
Mistake = Callable[[str, str], None]  # (key, message): a mistake found in the file
MATCH_KEYS = ("name", "command", "url", "fingerprint")
# `false` turns each off; `true` is the same as leaving the key out
FLAG_KEYS = ("repositoryMcpServers", "sampling", "autopilot", "allowNetwork")
KNOWN_KEYS = frozenset(
    {
        "contact",
        "allowedMcpServers",
        "deniedMcpServers",
        "requiredMcpServers",
        "mcpSandbox",
        "mcpToolPolicy",
        "allowedHosts",
        "mcpRegistry",
        "mcpRegistryOnly",
        *FLAG_KEYS,
    }
)
NO_POLICY_HINT = "(to have no policy, remove the file)"
CLOSED = (
    "your organisation's policy fails closed until this is fixed: no MCP server starts, and "
    "autopilot, network access and sampling are off (tell whoever manages LevelCode here)"
)


@dataclass(frozen=True)
class ServerMatch:
    """One entry of `allowedMcpServers` or `deniedMcpServers`: it matches a server when every key
    it has matches (mcp/config/managed_servers.py says how each key matches)."""

    where: str  # "deniedMcpServers[0]": where it is in the file, for every message that cites it
    name: str | None = None  # the server's name; * and ? are wildcards
    command: str | None = None  # the command line as `levelcode mcp list` shows it; * matches any text
    url: str | None = None  # scheme://host[:port][/path]: `*.example.com` for the hosts below it
    fingerprint: str | None = None  # the launch fingerprint `levelcode mcp get NAME` prints

    def describe(self) -> str:
        """`deniedMcpServers[0] (command "npx -y @evil/*")`."""
        parts = [f'{key} "{value}"' for key in MATCH_KEYS if (value := getattr(self, key)) is not None]
        return f"{self.where} ({', '.join(parts)})"


@dataclass(frozen=True)
class ManagedPolicy:
    file: str = ""  # "" when there is no policy file at all
    contact: str | None = None  # said with every refusal: who to ask
    allowed: tuple[ServerMatch, ...] | None = None  # None: no allow-list; (): no server may run
    denied: tuple[ServerMatch, ...] = ()
    required: Mapping[str, object] = field(default_factory=dict[str, object])  # entries as written
    repository_servers: bool = True
    sandbox: SandboxScope = "none"
    tool_rules: Mapping[str, ToolRule] = field(default_factory=dict[str, ToolRule])
    sampling: bool = True
    autopilot: bool = True
    allow_network: bool = True
    allowed_hosts: tuple[str, ...] | None = None  # None: no limit on the hosts the user may allow
    registry: str | None = None  # `mcpRegistry`: the MCP Registry every search and add uses
    registry_only: bool = False  # `mcpRegistryOnly`: only servers added from that registry run
    closed: bool = False  # the file could not be used: every restriction at its tightest
    problems: tuple[ConfigProblem, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.file)

    def by(self) -> str:
        """`your organisation's policy (/etc/levelcode/managed-settings.json)`."""
        return f"your organisation's policy ({self.file})"

    def host_allowed(self, entry: str) -> bool:
        """Whether a host the user lists for the sandbox may be reached (through the filter)."""
        return self.allow_network and host_permitted(entry, self.allowed_hosts)

    @property
    def whole_network(self) -> bool:
        """Whether the sandbox may be given the whole network (`--allow-network`, `"network": true`)."""
        return self.allow_network and self.allowed_hosts is None

    def decided(self, what: str) -> str:
        """`sandboxed by your organisation's policy (FILE)`: a decision that refuses nothing."""
        return f"{what} by {self.by()}"

    def refusal(self, what: str, reason: str | None = None) -> str:
        """The one wording of a refusal: `{what} by your organisation's policy (FILE): {reason} —
        {contact}`, e.g. `blocked by your organisation's policy (…): it matches deniedMcpServers[0]`."""
        text = self.decided(what)
        if reason:
            text += f": {reason}"
        return text + (f" — {self.contact}" if self.contact else "")


NO_POLICY = ManagedPolicy()


def closed_policy(file: str, problems: Sequence[ConfigProblem]) -> ManagedPolicy:
    """What a policy file that cannot be used means: everything it could restrict, restricted."""
    return ManagedPolicy(
        file=file,
        allowed=(),
        repository_servers=False,
        sandbox="all",
        tool_rules={"*": "deny"},
        sampling=False,
        autopilot=False,
        allow_network=False,
        allowed_hosts=(),
        closed=True,
        problems=tuple(problems),
    )


def unusable_policy(problem: ConfigProblem) -> ManagedPolicy:
    """The policy when its file could not be read or parsed at all: `problem` (FILE:LINE:COL for
    a JSON mistake) said with what failing closed means."""
    said = ConfigProblem(
        problem.file, "(file)", f"{problem.message}; {CLOSED}", line=problem.line, column=problem.column
    )
    return closed_policy(problem.file, [said])


def policy_from_text(text: str, *, file: str) -> ManagedPolicy:
    """The policy the text of its file states: closed when the text is blank or not JSON."""
    if not text.strip():
        said = f"not valid JSON: the file is empty {NO_POLICY_HINT}"
        return unusable_policy(ConfigProblem(file, "(file)", said))
    doc, problem = parse_json_text(text, file=file)
    if problem is not None:
        return unusable_policy(problem)
    return parse_managed_policy(doc, file=file)


def parse_managed_policy(doc: object, *, file: str) -> ManagedPolicy:
    """The policy a parsed file states; closed, with every mistake listed, if it has any, or if
    it is not a JSON object (`{}` is a policy that restricts nothing)."""
    if not isinstance(doc, Mapping):
        said = f"expected a JSON object, not {_kind(doc)} {NO_POLICY_HINT}"
        return unusable_policy(ConfigProblem(file, "(file)", said))
    problems: list[ConfigProblem] = []

    def mistake(key: str, message: str) -> None:
        problems.append(ConfigProblem(file, key, message))

    for key in doc:
        if key not in KNOWN_KEYS:
            mistake(str(key), "unknown key (a misspelt rule would be a rule not kept)")
    policy = ManagedPolicy(
        file=file,
        contact=_text(doc, "contact", mistake),
        allowed=_matches(doc, "allowedMcpServers", mistake) if "allowedMcpServers" in doc else None,
        denied=_matches(doc, "deniedMcpServers", mistake) if "deniedMcpServers" in doc else (),
        required=_required(doc, mistake),
        sandbox=_sandbox(doc, mistake),
        tool_rules=_tool_rules(doc, mistake),
        allowed_hosts=_hosts(doc, mistake),
        repository_servers=_flag(doc, "repositoryMcpServers", mistake),
        sampling=_flag(doc, "sampling", mistake),
        autopilot=_flag(doc, "autopilot", mistake),
        allow_network=_flag(doc, "allowNetwork", mistake),
        registry=_registry(doc, mistake),
        registry_only=_registry_only(doc, mistake),
    )
    if not problems:
        return policy
    closing = ConfigProblem(file, "(file)", f"{len(problems)} mistake(s), listed below; {CLOSED}")
    return closed_policy(file, [closing, *problems])


def _kind(doc: object) -> str:
    """`null`, `false`, `a list`: what a JSON document that is not an object is, in words."""
    if doc is None or isinstance(doc, bool):
        return "null" if doc is None else str(doc).lower()
    if isinstance(doc, int | float):
        return "a number"
    return "a string" if isinstance(doc, str) else "a list"


def _flag(doc: Mapping[object, object], key: str, mistake: Mistake) -> bool:
    value = doc.get(key, True)
    if not isinstance(value, bool):
        mistake(key, f"expected true or false; got {value!r}")
        return False
    return value


def _text(doc: Mapping[object, object], key: str, mistake: Mistake) -> str | None:
    value = doc.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        mistake(key, "expected a line of text (who to ask, e.g. a channel or an address)")
        return None
    return " ".join(value.split()) if isinstance(value, str) else None


def _matches(doc: Mapping[object, object], key: str, mistake: Mistake) -> tuple[ServerMatch, ...]:
    raw = doc.get(key)
    if not isinstance(raw, list):
        mistake(key, 'expected a list such as [{"name": "github"}, {"url": "https://*.example.com/*"}]')
        return ()
    found = []
    for index, entry in enumerate(raw):
        where = f"{key}[{index}]"
        match = _match(entry, where, mistake)
        if match is not None:
            found.append(match)
    return tuple(found)


def _match(entry: object, where: str, mistake: Mistake) -> ServerMatch | None:
    if not isinstance(entry, Mapping) or not entry:
        mistake(where, f"expected an object with one or more of {', '.join(MATCH_KEYS)}")
        return None
    values: dict[str, str] = {}
    for key, value in entry.items():
        if key not in MATCH_KEYS:
            mistake(f"{where}.{key}", f"unknown key; expected {', '.join(MATCH_KEYS)}")
        elif not isinstance(value, str) or not value.strip():
            mistake(f"{where}.{key}", "expected a non-empty string")
        elif key == "url" and (problem := url_pattern_problem(value)) is not None:
            mistake(f"{where}.url", problem)
        elif key == "fingerprint" and not _is_sha256(value):
            mistake(
                f"{where}.fingerprint", "expected 64 hexadecimal digits (levelcode mcp get NAME prints it)"
            )
        else:
            values[str(key)] = value.strip().lower() if key == "fingerprint" else value.strip()
    return ServerMatch(where, **values) if len(values) == len(entry) else None


def _is_sha256(text: str) -> bool:
    return len(text.strip()) == 64 and all(c in "0123456789abcdef" for c in text.strip().lower())


def url_pattern_problem(text: str) -> str | None:
    """Why `text` is not a URL pattern (`https://*.example.com/mcp*`); None when it is one."""
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return "expected http://… or https://… (a host may be *.example.com; a path may hold *)"
    host = rest.split("/", 1)[0]
    try:
        parse_host_entry(host)
    except ValueError as exc:
        return str(exc)
    return None


def registry_url_problem(text: str) -> str | None:
    """Why `text` cannot be an MCP Registry's base URL; None when it can. Plain http:// only to
    this machine: the registry's answer decides what runs, and on the way it could be changed."""
    parts = urlsplit(text)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "expected the registry's https:// URL, such as https://registry.modelcontextprotocol.io"
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return "plain http:// to another machine: what it answers decides what runs; use https://"
    if parts.query or parts.fragment or parts.username or parts.password:
        return "expected a base URL without a query, fragment or user name"
    return None


def _registry(doc: Mapping[object, object], mistake: Mistake) -> str | None:
    value = doc.get("mcpRegistry")
    if value is None:
        if doc.get("mcpRegistryOnly") is True:
            mistake("mcpRegistryOnly", "needs mcpRegistry: the registry whose servers alone may run")
        return None
    problem = registry_url_problem(value) if isinstance(value, str) else "expected a URL"
    if problem is not None:
        mistake("mcpRegistry", problem)
        return None
    return str(value).rstrip("/")


def _registry_only(doc: Mapping[object, object], mistake: Mistake) -> bool:
    value = doc.get("mcpRegistryOnly", False)
    if not isinstance(value, bool):
        mistake("mcpRegistryOnly", f"expected true or false; got {value!r}")
        return True
    return value


def _required(doc: Mapping[object, object], mistake: Mistake) -> dict[str, object]:
    raw = doc.get("requiredMcpServers", {})
    if not isinstance(raw, Mapping) or not all(isinstance(entry, Mapping) for entry in raw.values()):
        mistake("requiredMcpServers", 'expected an object of servers, as "mcpServers" in settings.json')
        return {}
    return {str(name): entry for name, entry in raw.items()}


def _sandbox(doc: Mapping[object, object], mistake: Mistake) -> SandboxScope:
    value = doc.get("mcpSandbox", "none")
    if value == "none":
        return "none"
    if value not in SANDBOX_SCOPES:
        mistake("mcpSandbox", f'expected "repository" or "all"; got {value!r}')
        return "all"
    return "repository" if value == "repository" else "all"


def _tool_rules(doc: Mapping[object, object], mistake: Mistake) -> dict[str, ToolRule]:
    raw = doc.get("mcpToolPolicy", {})
    if not isinstance(raw, Mapping):
        mistake("mcpToolPolicy", 'expected an object such as {"*__delete_*": "deny"}')
        return {}
    rules: dict[str, ToolRule] = {}
    for pattern, value in raw.items():
        where = f"mcpToolPolicy.{pattern}"
        if not isinstance(pattern, str) or not pattern or (pattern != "*" and "__" not in pattern):
            mistake(where, 'expected "*" or SERVER__TOOL, where either side may hold * and ?')
        elif value == "deny":
            rules[pattern] = "deny"
        elif value == "ask":
            rules[pattern] = "ask"
        else:
            mistake(where, f'expected "deny" or "ask" (allowing is each user\'s own choice); got {value!r}')
    return rules


def _hosts(doc: Mapping[object, object], mistake: Mistake) -> tuple[str, ...] | None:
    raw = doc.get("allowedHosts")
    if raw is None:
        return None
    if not isinstance(raw, list):
        mistake("allowedHosts", 'expected a list of hosts such as ["*.example.com", "pypi.org"]')
        return ()
    hosts: list[str] = []
    for index, value in enumerate(raw):
        try:
            if not isinstance(value, str):
                raise ValueError(f"expected a host name such as api.example.com; got {value!r}")
            hosts.append(parse_host_entry(value).text())
        except ValueError as exc:
            mistake(f"allowedHosts[{index}]", str(exc))
    return tuple(hosts)


def host_permitted(entry: str, allowed: Sequence[str] | None) -> bool:
    """Whether a host entry the user wrote (`api.example.com`, `*.example.com:8443`) lies within
    the organisation's `allowedHosts`; every entry does when there is no such list."""
    if allowed is None:
        return True
    try:
        wanted = parse_host_entry(entry)
    except ValueError:
        return False
    return any(parse_host_entry(text).covers(wanted) for text in allowed)
