"""The MCP router: where a tool name no built-in has falls through to. Every call goes
classify → approve → call, and returns the hub's string.

Gates G2/G3 live here: the classifier sees the organisation's tool rules, the user's allow rules
for that server (mcp/calls/allow_store.py), the tool's current definition and the server's
annotations, never autopilot;
anything not allowed asks, and with nobody to ask it is refused with `explain_mcp_refusal`'s
message. "Always allow" records the tool's definition where that server's rules live, and is not
offered for a destructive tool.

With a `search_policy` (set by the session), tools may be offered deferred (mcp/calls/deferral.py):
`specs` then holds `tool_search`, the loaded tools and the deferred ones as `DeferredTool`s;
`tool_search` is answered here, from the catalog, without contacting any server, and what it
finds is called like any other tool — same route, same gates.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Protocol

from levelcode.core.approvals import Approver, decide_or_deny
from levelcode.core.messages import ToolShape, ToolUse
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.core.progress import Progress, ProgressCallback
from levelcode.core.resource_changes import ResourceChanged
from levelcode.core.tool_offers import DeferredTool
from levelcode.mcp.calls.allow_store import ToolAllowances
from levelcode.mcp.calls.call_card import call_card, mask_arguments
from levelcode.mcp.calls.catalog import Catalog, McpRoute, build_catalog
from levelcode.mcp.calls.deferral import (
    TOOL_SEARCH_NAME,
    DeferralPlan,
    ToolSearchPolicy,
    plan_deferral,
    rank_tools,
    search_result_text,
    server_purpose,
)
from levelcode.mcp.calls.policy import (
    McpVerdict,
    PolicyEntry,
    classify_mcp_tool,
    explain_mcp_refusal,
    organisation_tool_rule,
)
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch.trust import needs_launch_approval
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.protocol.handshake import ServerInfo
from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy

log = logging.getLogger("levelcode.mcp")


class ToolSearchRoute:
    """What `tool_search` resolves to: the router's own catalog search, no server."""


class Servers(Protocol):
    """The servers as the router reaches them (the hub, live/hub.py): their entries, the tools of
    those running, and a call to one of them. The router never starts or stops a server."""

    on_tools_changed: Callable[[str], None] | None

    def entries(self) -> Mapping[str, ServerSpec]:
        """Every server given to the hub, running or not."""

    def running_info(self) -> Mapping[str, ServerInfo]: ...

    def listings(self) -> Sequence[tuple[str, Sequence[Mapping[str, object]]]]: ...

    def resource_servers(self) -> set[str]: ...

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, object],
        *,
        on_progress: ProgressCallback | None = None,
    ) -> ToolOutcome: ...

    async def resource_call(self, server: str, kind: str, arguments: Mapping[str, object]) -> ToolOutcome: ...

    async def refresh_stale_lists(self) -> bool:
        """Re-list the tools of every server whose list's TTL ran out; whether any changed."""

    async def resource_changes(self) -> tuple[ResourceChanged, ...]:
        """The resources in use that changed since last asked, each once."""


class McpRouter:
    def __init__(
        self,
        servers: Servers,
        tool_policy: MutableMapping[str, PolicyEntry],
        approver: Approver,
        *,
        reserved: Collection[str],
        settings_file: Path,
        workspace: Path | None = None,
        store: TrustStore | None = None,
        managed: ManagedPolicy = NO_POLICY,
    ) -> None:
        """`managed`: the organisation's policy, whose tool rules no answer or setting loosens."""
        self.servers = servers
        self.managed = managed
        self.tool_policy = tool_policy
        self.allowances = ToolAllowances(tool_policy, settings_file, workspace=workspace, store=store)
        self.approver = approver
        self.reserved = frozenset(reserved)
        self.settings_file = settings_file
        self.catalog = Catalog()
        self.on_progress: Callable[[ToolUse, Progress], None] | None = None  # the session shows it
        self.search_policy: ToolSearchPolicy | None = None  # None: every tool is offered up front
        self._stale = True
        self._plan: tuple[Catalog, ToolSearchPolicy | None, DeferralPlan] | None = None
        servers.on_tools_changed = self._tools_changed

    def _tools_changed(self, server: str) -> None:
        log.info("tools of %s changed; the catalog is rebuilt before the next model call", server)
        self._stale = True

    async def prepare(self) -> None:
        """Before each model request: lists whose TTL ran out are fetched again (2026-07-28)."""
        await self.servers.refresh_stale_lists()

    async def changes(self) -> Sequence[ResourceChanged]:
        """Before a turn: the resources in use that servers said changed (attached ones re-read)."""
        return await self.servers.resource_changes()

    def rebuild(self) -> Catalog:
        listings, resources = self.servers.listings(), self.servers.resource_servers()
        self.catalog = build_catalog(listings, reserved=self.reserved, resource_servers=resources)
        self._stale = False
        return self.catalog

    def current(self) -> Catalog:
        return self.rebuild() if self._stale else self.catalog

    def plan(self) -> DeferralPlan:
        """What of the current catalog the model sees up front, and what waits behind tool_search."""
        catalog = self.current()
        if self._plan is None or self._plan[0] is not catalog or self._plan[1] != self.search_policy:
            plan = DeferralPlan(catalog.tools)
            if self.search_policy is not None:
                plan = plan_deferral(
                    catalog, self.search_policy, always_load=self._always_load(), purposes=self._purposes()
                )
            self._plan = (catalog, self.search_policy, plan)
        return self._plan[2]

    def _always_load(self) -> set[str]:
        return {name for name, spec in self.servers.entries().items() if spec.always_load}

    def _purposes(self) -> dict[str, str]:
        running = self.servers.running_info().items()
        return {name: server_purpose(info.instructions, info.name) for name, info in running}

    def specs(self) -> Sequence[ToolShape]:
        plan = self.plan()
        if plan.search is None:
            return plan.loaded
        deferred = [DeferredTool(t.name, t.description, t.input_schema) for t in plan.deferred]
        return [plan.search, *plan.loaded, *deferred]

    def route(self, name: str) -> McpRoute | ToolSearchRoute | None:
        """What a tool name means now: the one lookup a call makes (the agent resolves it once)."""
        if name == TOOL_SEARCH_NAME and self.plan().search is not None:
            return ToolSearchRoute()
        return self.current().route(name)

    def shown_input(self, name: str, tool_input: Mapping[str, object]) -> Mapping[str, object]:
        if name == TOOL_SEARCH_NAME:  # the model's own words, sent to no server
            return dict(tool_input)
        return mask_arguments(tool_input)

    def search(self, tool_input: Mapping[str, object]) -> ToolOutcome:
        """`tool_search`: the deferred tools that match, loaded by reference (never a server call)."""
        query = tool_input.get("query")
        if not isinstance(query, str) or not query.strip():
            return failure('tool_search needs a "query": words for what the tool should do, or tool names')
        plan = self.plan()
        found = rank_tools(query, plan.deferred, self.current())
        log.info("tool_search %r found %s", query, [t.name for t in found])
        return ToolOutcome(search_result_text(query, found), references=tuple(t.name for t in found))

    def verdict(self, name: str) -> McpVerdict | None:
        route = self.current().route(name)
        return self._verdict(name, route) if route is not None else None

    def _verdict(self, name: str, route: McpRoute) -> McpVerdict | None:
        spec = self.servers.entries().get(route.server)
        if spec is None:
            return None
        policy = self.allowances.policy_for(spec, name, route.tool)
        repository = needs_launch_approval(spec)
        organisation = organisation_tool_rule(route.server, route.tool, self.managed)
        return classify_mcp_tool(
            name,
            route.annotations,
            policy,
            route.definition,
            repository=repository,
            organisation=organisation,
        )

    async def call(
        self,
        use: ToolUse,
        route: McpRoute | ToolSearchRoute | None = None,
        shown: Mapping[str, object] | None = None,
    ) -> ToolOutcome:
        """classify → approve → call. `route`: what the caller already resolved `use.name` to;
        `shown`: the input as `shown_input` masked it for this call (masked here when not given)."""
        route = route or self.route(use.name)
        if isinstance(route, ToolSearchRoute):
            return self.search(use.input)
        verdict = self._verdict(use.name, route) if route is not None else None
        if route is None or verdict is None:
            return failure(f"no MCP tool named {use.name!r} is available now")
        masked = shown if shown is not None else mask_arguments(use.input)  # logs never see values
        if verdict.decision == "deny":  # the organisation's policy: no card, no answer changes it
            log.info("mcp call %s refused (%s) args=%s", use.name, verdict.reason, masked)
            return explain_mcp_refusal(verdict)
        if verdict.decision == "ask":
            refusal = await self._ask(route, verdict, use.input)
            if refusal is not None:
                log.info("mcp call %s refused (%s) args=%s", use.name, verdict.reason, masked)
                return refusal
        log.info("mcp call %s (%s) args=%s", use.name, verdict.reason, masked)
        if route.kind != "tool":
            return await self.servers.resource_call(route.server, route.kind, use.input)
        on_progress = self.on_progress
        progress = None if on_progress is None else lambda update: on_progress(use, update)
        return await self.servers.call(route.server, route.tool, use.input, on_progress=progress)

    async def _ask(
        self, route: McpRoute, verdict: McpVerdict, arguments: Mapping[str, object]
    ) -> ToolOutcome | None:
        """None when the user allowed the call; otherwise the refusal the model gets."""
        settings = str(self.settings_file)
        if not self.approver.interactive:
            return explain_mcp_refusal(verdict, settings_file=settings)
        card = call_card(route.server, route.tool, verdict, arguments, settings)
        choice = await decide_or_deny(self.approver, card)
        if choice == "deny":
            return explain_mcp_refusal(verdict, denied_by_user=True, settings_file=settings)
        spec = self.servers.entries().get(route.server)
        if choice == "always" and verdict.can_always and spec is not None and route.definition is not None:
            problem = self.allowances.record(spec, verdict.name, route.tool, route.definition)
            if problem is not None:
                log.warning('could not keep the "always" answer for %s: %s', verdict.name, problem)
        return None
