"""The tiers of MCP configuration as plain data: what each file contributed (`TierConfig`) and
their merge into the session's one `McpConfig`, every server with its provenance.

Pure: takes parsed JSON documents, returns specs and problems; never reads a file (config/files.py
does), never spawns. Security-relevant keys (servers, tool policy, autopilot) are read from the
user tier only. Above both tiers, the servers an organisation's policy requires (`organisation`
tier, trusted like the user's) win every name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import is_absent
from levelcode.mcp.config.allow_rules import AllowRule
from levelcode.mcp.config.server_entry import ExpandSpec, parse_server_map, server_key
from levelcode.mcp.config.specs import Provenance, ServerSpec
from levelcode.mcp.config.tool_policy import POLICY_KEY, parse_tool_policy
from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy
from levelcode.policy.profiles import Profile
from levelcode.policy.settings import USER_ONLY_KEYS, Settings, ignored_key

PURE = True

SERVERS_KEY = "mcpServers"


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
            problems.append(ConfigProblem(spec.provenance.file, server_key(SERVERS_KEY, spec.name), message))
    problems.extend(extra)
    return McpConfig(tuple(servers), dict(user.tool_policy), tuple(problems))
