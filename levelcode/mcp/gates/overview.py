"""One summary of every configured MCP server, for every view: the run-start chip, `levelcode mcp
list`, and `/mcp`. Pure: built from the config, the servers' states, the trust decisions and the
same catalog and classifier the router uses, so no view can claim a tool is allowed that the
router would refuse.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from levelcode.core.errors import ConfigProblem
from levelcode.core.token_estimate import tool_tokens
from levelcode.mcp.config.allow_rules import AllowRule
from levelcode.mcp.config.specs import McpConfig, ServerSpec, StdioServerSpec, Tier
from levelcode.mcp.gates.catalog import Catalog
from levelcode.mcp.gates.policy import Decision, ToolKind, classify_mcp_tool, policy_for_tool
from levelcode.mcp.gates.trust import OLD_APPROVAL, TrustState, needs_launch_approval

NEEDS_APPROVAL = "needs approval"
COMMAND_CHANGED = "command changed — needs approval"
DENIED = "not approved — you said no this session"


def since_approval(change: str | None) -> str:
    """A change as a sentence: "its command changed since you approved it", "server.py changed …"."""
    if change is None or change == "command changed":
        return "its command changed since you approved it"
    if change == OLD_APPROVAL:
        return f"it was {change}"
    return f"{change} since you approved it"


def changed_state(change: str | None) -> str:
    """The state of a server whose approved launch changed: what changed, and that it waits."""
    if change is None or change == "command changed":
        return COMMAND_CHANGED
    if change == OLD_APPROVAL:
        return f"{change} — {NEEDS_APPROVAL}"
    return f"{change} since you approved — {NEEDS_APPROVAL}"


@dataclass(frozen=True)
class ServerStatus:
    """What the hub knows of one server: running, failed, disabled or not started (and why)."""

    status: str
    reason: str | None = None


@dataclass(frozen=True)
class ToolLine:
    name: str  # as the model sees it
    tool: str  # as the server calls it
    decision: Decision
    reason: str
    kind: ToolKind = "unannotated"  # what its annotations say, read the spec's way


@dataclass(frozen=True)
class ServerSummary:
    name: str
    state: str
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

    @property
    def running(self) -> bool:
        return self.state == "running"


def launch_text(spec: ServerSpec) -> str:
    """The literal command line (or URL), quoted so that it reads back as exactly what runs."""
    if isinstance(spec, StdioServerSpec):
        return shlex.join((spec.command, *spec.args))
    return spec.url


def state_text(
    spec: ServerSpec, status: ServerStatus | None, trust: TrustState | None, change: str | None = None
) -> str:
    if spec.disabled:
        return "disabled"
    if status is not None and status.status == "running":
        return "running"
    if status is not None and status.status == "failed":
        return f"failed: {status.reason}"
    if status is not None and status.reason == DENIED:
        return f"{change or 'command changed'} — you said no this session" if trust == "changed" else DENIED
    if trust == "changed":
        return changed_state(change)
    if trust == "never_approved":
        return NEEDS_APPROVAL
    return (status.reason if status is not None and status.reason else None) or "not started"


def summarize(
    config: McpConfig,
    statuses: Mapping[str, ServerStatus],
    trust: Mapping[str, TrustState],
    catalog: Catalog,
    *,
    repository_rules: Mapping[str, Mapping[str, AllowRule]] | None = None,
    changes: Mapping[str, str] | None = None,
) -> tuple[ServerSummary, ...]:
    """One summary per configured server. `repository_rules`: per repository server, what the user
    answered "always" for here; `changes` names what changed for a "changed" one."""
    changes = changes or {}
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
            tool.name, route.annotations, policy, route.definition, repository=repository
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
                state=state_text(spec, statuses.get(spec.name), trust.get(spec.name), changes.get(spec.name)),
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
            )
        )
    return tuple(summaries)


def chip(summaries: Sequence[ServerSummary]) -> str | None:
    """`mcp · filesystem (11) · github (41) · 3/52 allow-listed · 1 server needs approval`."""
    if not summaries:
        return None
    running = [s for s in summaries if s.running]
    parts = ["mcp", *(f"{s.name} ({len(s.tools)})" for s in running)]
    total = sum(len(s.tools) for s in running)
    allowed = sum(1 for s in running for t in s.tools if t.decision == "allow")
    if running:
        parts.append(f"{allowed}/{total} allow-listed")
    waiting = sum(1 for s in summaries if s.state == NEEDS_APPROVAL)
    changed = sum(1 for s in summaries if s.trust == "changed" and s.state.endswith(NEEDS_APPROVAL))
    failed = sum(1 for s in summaries if s.state.startswith("failed"))
    parts.extend(_count(waiting, "server needs approval", "servers need approval"))
    parts.extend(_count(changed, "server changed since you approved it", "servers changed since approval"))
    parts.extend(_count(failed, "server failed", "servers failed"))
    parts.extend(f"{s.name}: {s.dropped} tools over the cap left out" for s in running if s.dropped)
    parts.extend(
        f"{s.name}: {len(s.left_out)} over the definition cap left out" for s in running if s.left_out
    )
    return " · ".join(parts)


def stale_approvals(config: McpConfig, approved: Mapping[str, str]) -> list[tuple[str, str]]:
    """(name, launch as approved) of approvals for servers this workspace no longer configures."""
    configured = {spec.name for spec in config.servers if spec.provenance.tier == "workspace"}
    return [(name, launch) for name, launch in sorted(approved.items()) if name not in configured]


def _count(number: int, one: str, many: str) -> list[str]:
    if number == 0:
        return []
    return [f"{number} {one if number == 1 else many}"]


@dataclass(frozen=True)
class ListView:
    """Everything `mcp list` and `/mcp` show: the summaries, the configuration's problems, stale
    approvals, the trust store's warning, and notes."""

    summaries: Sequence[ServerSummary]
    problems: Sequence[ConfigProblem] = ()
    stale: Sequence[tuple[str, str]] = ()  # approvals for servers no longer configured
    warning: str | None = None
    notes: Sequence[str] = field(default_factory=tuple)
