"""One summary of every configured MCP server, for every view: the run-start chip, `levelcode mcp
list`, and `/mcp`. Pure: built from the config, the servers' typed states, the trust decisions
and the same catalog and classifier the router uses, so no view can claim a tool is allowed that
the router would refuse. The words for all of it are the ui's (ui/mcp_words.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from levelcode.core.errors import ConfigProblem
from levelcode.core.messages import Message, ToolShape
from levelcode.core.token_estimate import tool_tokens
from levelcode.core.tool_offers import DeferredTool, offer_found
from levelcode.mcp.calls.catalog import Catalog
from levelcode.mcp.calls.policy import (
    Decision,
    ToolKind,
    classify_mcp_tool,
    organisation_tool_rule,
    policy_for_tool,
)
from levelcode.mcp.config.allow_rules import AllowRule
from levelcode.mcp.config.specs import OrgRule, ServerSpec, StdioServerSpec, Tier
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.server_box import SandboxChoice, ServerBox, server_box
from levelcode.mcp.launch.status import NOT_STARTED, ServerStatus, held_status
from levelcode.mcp.launch.trust import TrustState, needs_launch_approval

PURE = True


@dataclass(frozen=True)
class ToolLine:
    name: str  # as the model sees it
    tool: str  # as the server calls it
    decision: Decision
    reason: str
    kind: ToolKind = "unannotated"  # what its annotations say, read the spec's way


@dataclass(frozen=True)
class ServerFacts:
    """What a running server said of itself: the negotiated protocol version, its name and version
    (its own words: escape them where printed), what it offers, and its error-level log messages."""

    protocol: str
    name: str | None = None
    version: str | None = None
    offers: tuple[str, ...] = ()
    log_errors: tuple[str, ...] = ()
    watched_resources: int = 0  # resources in use whose changes the server reports
    resource_updates: tuple[tuple[str, float], ...] = ()  # (uri, when): the latest changes it reported


@dataclass(frozen=True)
class ServerSummary:
    name: str
    status: ServerStatus
    tier: Tier
    file: str
    launch: str
    trust: TrustState | None  # workspace servers only
    tools: tuple[ToolLine, ...] = ()
    change: str | None = None  # when trust is "changed": what ("command changed", "server.py changed")
    dropped: int = 0
    malformed: int = 0
    schema_tokens: int = 0  # the standing cost of its tool schemas, sent with every request
    cut_descriptions: tuple[str, ...] = ()  # where a cap bit: the server's own tool names
    trimmed_schemas: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    remote: bool = False  # reached over HTTP: no process, no stderr log
    sandbox: ServerBox | None = None  # how it runs confined; None: unconfined (or not decided yet)
    facts: ServerFacts | None = None  # while it runs
    organisation: OrgRule | None = None  # what the organisation's policy decided for it

    @property
    def running(self) -> bool:
        return self.status.running


@dataclass(frozen=True)
class ServerDescription:
    """`mcp get`'s view of one server: its summary as every view shows it, whether the launch
    gate let it start for this look, and (a repository's, changed since) the launch approved."""

    summary: ServerSummary
    started: bool
    approved_launch: str | None = None


@dataclass(frozen=True)
class ToolsByServer:
    """What the MCP tools the next request offers cost, by server: those whose definitions are
    sent, those deferred and not found yet, and the search tool (None: tools are not deferred)."""

    loaded: dict[str, list[ToolShape]]
    deferred: dict[str, list[ToolShape]]
    search: ToolShape | None


def tools_by_server(
    catalog: Catalog, offered: Sequence[ToolShape], running: Sequence[str], messages: Sequence[Message]
) -> ToolsByServer:
    """The `offered` tools grouped by the server that has each (every running server has a
    place, however few its tools); a deferred tool the conversation found counts as loaded."""
    grouped = ToolsByServer({name: [] for name in running}, {}, None)
    for tool in offer_found(offered, messages):
        route = catalog.route(tool.name)
        if route is None:
            grouped = dataclasses.replace(grouped, search=tool)  # the one MCP tool no server has
        elif isinstance(tool, DeferredTool) and not tool.found:
            grouped.deferred.setdefault(route.server, []).append(tool)
        else:
            grouped.loaded.setdefault(route.server, []).append(tool)
    return grouped


@dataclass(frozen=True)
class Restarted:
    """`/mcp restart NAME`: the server's summary once its new start ended (None: no server has
    that name; `configured` names those that do)."""

    server: str
    summary: ServerSummary | None
    configured: tuple[str, ...] = ()


def summarize(
    config: McpConfig,
    statuses: Mapping[str, ServerStatus],
    trust: Mapping[str, TrustState],
    catalog: Catalog,
    *,
    repository_rules: Mapping[str, Mapping[str, AllowRule]] | None = None,
    changes: Mapping[str, str] | None = None,
    sandbox_choices: Mapping[str, SandboxChoice] | None = None,
    facts: Mapping[str, ServerFacts] | None = None,
) -> tuple[ServerSummary, ...]:
    """One summary per configured server. `repository_rules`: per repository server, what the user
    answered "always" for here; `changes` names what changed for a "changed" one;
    `sandbox_choices`: how each approved repository server runs in the sandbox."""
    changes = changes or {}
    sandbox_choices = sandbox_choices or {}
    lines: dict[str, list[ToolLine]] = {}
    tokens: dict[str, int] = {}
    repositories = {spec.name for spec in config.servers if needs_launch_approval(spec)}
    for tool in catalog.tools:
        route = catalog.routes[tool.name]
        repository = route.server in repositories
        policy = policy_for_tool(
            tool.name,
            route.tool,
            repository=repository,
            user_policy=config.tool_policy,
            repository_rules=(repository_rules or {}).get(route.server, {}),
        )
        verdict = classify_mcp_tool(
            tool.name,
            route.annotations,
            policy,
            route.definition,
            repository=repository,
            organisation=organisation_tool_rule(route.server, route.tool, config.managed),
        )
        lines.setdefault(route.server, []).append(
            ToolLine(tool.name, route.tool, verdict.decision, verdict.reason, verdict.kind)
        )
        tokens[route.server] = tokens.get(route.server, 0) + tool_tokens(tool)
    summaries = []
    for spec in config.servers:
        counts = catalog.counts.get(spec.name)
        summaries.append(
            ServerSummary(
                name=spec.name,
                status=_status(spec, statuses.get(spec.name), trust.get(spec.name)),
                tier=spec.provenance.tier,
                file=spec.provenance.file,
                launch=launch_text(spec),
                trust=trust.get(spec.name),
                tools=tuple(lines.get(spec.name, ())),
                dropped=counts.dropped if counts else 0,
                malformed=counts.malformed if counts else 0,
                schema_tokens=tokens.get(spec.name, 0),
                cut_descriptions=counts.cut_descriptions if counts else (),
                trimmed_schemas=counts.trimmed_schemas if counts else (),
                left_out=counts.left_out if counts else (),
                change=changes.get(spec.name),
                remote=not isinstance(spec, StdioServerSpec),
                sandbox=server_box(spec, sandbox_choices.get(spec.name)),
                facts=(facts or {}).get(spec.name),
                organisation=spec.organisation,
            )
        )
    return tuple(summaries)


_SETTLED = frozenset({"running", "failed", "denied", "starting", "needs_login"})


def _status(spec: ServerSpec, status: ServerStatus | None, trust: TrustState | None) -> ServerStatus:
    """The hub's status, except that a blocked or disabled server says so, and one that is not
    running and not starting is held as its launch's trust holds it (e.g. revoked, then stopped:
    waiting for approval) — the one rule, `held_status`."""
    held = held_status(spec)
    if held is None and status is not None and status.phase in _SETTLED:
        return status
    return held or held_status(spec, trust) or status or NOT_STARTED


def list_notes(config: McpConfig) -> list[str]:
    """Under the list: the profile in use, and the organisation's policy, when there is one."""
    notes = []
    if (profile := config.profile) is not None:
        notes.append(
            f"Profile {profile!r}: only its servers start (/profile - or no --profile: every server)."
        )
    if (managed := config.managed).active:
        notes.append(
            f"Your organisation's policy applies: {managed.file}"
            + (f" ({managed.contact})" if managed.contact else "")
        )
    return notes


def stale_approvals(config: McpConfig, approved: Mapping[str, str]) -> list[tuple[str, str]]:
    """(name, launch as approved) of approvals for servers this workspace no longer configures."""
    configured = {spec.name for spec in config.servers if spec.provenance.tier == "workspace"}
    return [(name, launch) for name, launch in sorted(approved.items()) if name not in configured]


@dataclass(frozen=True)
class ListView:
    """Everything `mcp list` and `/mcp` show: the summaries, the configuration's problems, stale
    approvals, the trust store's warning, and notes."""

    summaries: Sequence[ServerSummary]
    problems: Sequence[ConfigProblem] = ()
    stale: Sequence[tuple[str, str]] = ()  # approvals for servers no longer configured
    warning: str | None = None
    notes: Sequence[str] = field(default_factory=tuple)
