"""The MCP layer for one workspace: the start's plan (mcp/launch/server_plan.py) → launch gate
(G1, mcp/launch/gate.py) → hub (built by session_hub.py) → router, and the summary every view
shows; the workspace's approvals through `trust` (mcp/launch/workspace_trust.py).

The gate decides, asking the session's approver; the runtime applies its verdicts (the hub holds
what may not start, the notices go to the session) and starts the rest.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from levelcode.core.approvals import Approver
from levelcode.core.messages import Message, ToolUse
from levelcode.core.outcome import ToolOutcome
from levelcode.core.progress import Progress
from levelcode.mcp.calls.deferral import ToolSearchPolicy
from levelcode.mcp.calls.router import McpRouter
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.gate import Admission
from levelcode.mcp.launch.server_box import SandboxChoice
from levelcode.mcp.launch.server_plan import ServerPlan, plan_servers
from levelcode.mcp.launch.status import LoginNeeded, McpNote, McpNotice, Revoked, ServerFailed, Stopped
from levelcode.mcp.launch.trust import LaunchReview, needs_launch_approval
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.launch.workspace_trust import WorkspaceTrust
from levelcode.mcp.live.client_features import UserAnswers, WorkspaceRoots, workspace_roots
from levelcode.mcp.live.connection import McpConnection
from levelcode.mcp.live.early_start import EarlyStart
from levelcode.mcp.live.overview import (
    ListView,
    Restarted,
    ServerDescription,
    ServerFacts,
    ServerSummary,
    ToolsByServer,
    list_notes,
    stale_approvals,
    summarize,
    tools_by_server,
)
from levelcode.mcp.live.session_hub import hub_options, make_hub
from levelcode.platform.settings_files import load_settings
from levelcode.platform.spill_files import SpillFiles
from levelcode.policy.settings import Settings

Notify = Callable[[McpNotice], None]  # the session words them (ui/mcp_words.py)


def _no_progress(_names: Sequence[str]) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


class McpRuntime:
    """The one door into MCP for everything above it: the CLI starts, views, calls, restarts and
    tunes the servers here, and never reaches the hub or the router behind it."""

    def __init__(
        self,
        workspace: Path,
        config: McpConfig,
        approver: Approver,
        *,
        settings: Settings | None = None,
        reserved: Collection[str] = (),
        notify: Notify = lambda _notice: None,
        store: TrustStore | None = None,
        roots: WorkspaceRoots | None = None,
        answers: UserAnswers | None = None,
        early: EarlyStart | None = None,
    ) -> None:
        """`settings`: the session's, read once (those the config was read with, else read here).
        `roots`: the folders servers are told; `answers`: who answers their questions to the user;
        `early`: the user's servers the session spawned before loading the runtime (early_start.py)."""
        self.workspace = workspace
        self.settings = settings or config.settings or load_settings(workspace)
        self.config = config
        self.approver = approver
        self.notify = notify
        self.roots = roots or workspace_roots(workspace)
        self.answers = answers or UserAnswers()
        self.hub = make_hub(workspace, self.settings, roots=self.roots, answers=self.answers, early=early)
        self.trust = WorkspaceTrust(workspace, store)  # the door to approvals, as `mcp trust`'s
        self.gate = self.trust.gate
        self.router = McpRouter(
            self.hub,
            dict(config.tool_policy),
            approver,
            reserved=reserved,
            settings_file=self.settings.user_file,
            workspace=workspace,
            store=self.gate.store,
            managed=config.managed,
        )
        self.sandbox_choices: dict[str, SandboxChoice] = {}  # this session's repository servers
        # each repository server's launch as the gate last saw it (hashed then, not for each view)
        self.seen: dict[str, LaunchReview] = {}
        # wraps the concurrent start of the permitted servers (the REPL shows a spinner there)
        self.starting: Callable[[Sequence[str]], AbstractContextManager[object]] = _no_progress

    @classmethod
    def planned(
        cls,
        plan: ServerPlan,
        approver: Approver,
        *,
        early: EarlyStart | None = None,
        reserved: Collection[str] = (),
        notify: Notify = lambda _notice: None,
        store: TrustStore | None = None,
        roots: WorkspaceRoots | None = None,
    ) -> McpRuntime:
        """The runtime of one start: the plan's servers, settings and options; `early`: the plan's
        servers spawned already (without one, the hub takes the plan's launches unspawned)."""
        return cls(
            plan.workspace,
            plan.config,
            approver,
            settings=plan.settings,
            reserved=reserved,
            notify=notify,
            store=store,
            roots=roots,
            early=early if early is not None else EarlyStart(plan),
        )

    @property
    def store(self) -> TrustStore:
        return self.gate.store

    def attach(
        self,
        approver: Approver,
        notify: Notify,
        *,
        answers: UserAnswers | None = None,
        progress: Callable[[ToolUse, Progress], None] | None = None,
    ) -> None:
        """Who answers the launch gate's and the router's questions, who hears the notices, who
        answers what servers ask of the user, and who shows a call's progress: given when the
        session opens, after the runtime may have begun starting servers (their handlers read
        `self.answers` when a server asks)."""
        self.approver = approver
        self.router.approver = approver
        self.router.on_progress = progress
        self.notify = notify
        if answers is not None:
            self.answers.elicit, self.answers.sample = answers.elicit, answers.sample

    def tool_source(self) -> McpRouter:
        """The MCP tools as the toolbox's extra source: each call classified, asked and called."""
        return self.router

    def set_search_policy(self, policy: ToolSearchPolicy | None) -> None:
        """Whether (and past what share of the model's window) tools are offered deferred."""
        self.router.search_policy = policy

    def deferred_count(self) -> int:
        """How many tools the next request offers deferred, found through the search tool."""
        return len(self.router.plan().deferred)

    def tools_by_server(self, messages: Sequence[Message]) -> ToolsByServer:
        """What the MCP tools the next request offers cost, by server (`/context`)."""
        running = [connection.name for connection in self.hub.connections()]
        return tools_by_server(self.router.current(), self.router.specs(), running, messages)

    @property
    def saved_results(self) -> SpillFiles:
        """The results cut this session, saved whole: the read tool may page through exactly these."""
        return self.hub.spills

    def still_starting(self) -> list[str]:
        """The servers whose start has not ended yet, in start order."""
        return self.hub.still_starting()

    def known_servers(self) -> list[str]:
        """The servers begun or held this session, whatever became of them."""
        return list(self.hub.servers)

    def connection(self, name: str) -> McpConnection | None:
        """The running server `name` (its resources, prompts and tools), or None."""
        return self.hub.connection(name)

    def connections(self) -> list[McpConnection]:
        """Every running server, in start order."""
        return self.hub.connections()

    def add_root(self, folder: Path) -> None:
        """Tell the servers that asked for the roots that `folder` is one too."""
        self.roots.folders.append(folder)
        self.hub.roots_changed()

    def hear_resource_changes(self, heard: Callable[[str, str], None]) -> None:
        """Who hears (server, uri) as soon as a server says a resource in use changed — the REPL
        says it above an idle prompt; the model is told with the next message either way."""
        self.hub.on_resource_updated = heard

    def reviews(self) -> dict[str, LaunchReview]:
        """Each repository server's launch as the launch gate last saw it (its files hashed then);
        one the gate has not seen this session is reviewed now, once."""
        for spec in self.config.servers:
            if spec.name not in self.seen and (review := self.gate.review(spec)) is not None:
                self.seen[spec.name] = review
        return {s.name: self.seen[s.name] for s in self.config.servers if s.name in self.seen}

    async def begin_trusted(self) -> None:
        """Start the servers that start without asking (the user's own, not disabled) and return
        once their processes exist: a session does this first, so they boot while it sets itself
        up, and only then keeps the loop busy with its own imports."""
        self.hub.begin(
            s for s in self.config.servers if not needs_launch_approval(s) and self.gate.may_start_unasked(s)
        )
        await self.hub.spawned()

    async def start(self) -> None:
        """Pass every server through the gate, then start the permitted ones concurrently."""
        await self.launch(await self.admit())

    async def admit(self, specs: Sequence[ServerSpec] | None = None) -> list[ServerSpec]:
        """The launch gate for every server (or those given; it may ask the user): the servers
        that may start."""
        if self.store.warning:
            self.notify(McpNote(self.store.warning, warning=True))
        admission = await self.gate.admit(
            self.config.servers if specs is None else specs,
            self.approver,
            confinement=self.hub.options.sandbox,
            provider_keys=self.hub.options.provider_key_values,
        )
        self._apply(admission)
        for verdict in admission.verdicts:
            if verdict.starts:
                self._remember_sandbox(verdict.spec.name, verdict.sandbox)
        if not any(verdict.answered for verdict in admission.verdicts):
            return admission.starting  # no card was open: every launch was hashed just now, once
        checked = self.gate.still_as_approved(admission.starting)  # files may change while one is
        self._apply(checked)
        return checked.starting

    def _apply(self, admission: Admission) -> None:
        """The hub holds what the gate held back; the session hears the gate's notices; the views
        show each launch as the gate saw it."""
        for verdict in admission.verdicts:
            if verdict.held is not None:
                self.hub.hold(verdict.spec, verdict.held)
            if verdict.answered:  # on its own card or all at once: as seen before no longer holds
                self.seen.pop(verdict.spec.name, None)
            elif verdict.review is not None:
                self.seen[verdict.spec.name] = verdict.review
        for notice in admission.notices:
            self.notify(notice)

    async def launch(self, permitted: Sequence[ServerSpec]) -> None:
        """Start the permitted servers (those begun already are waited for), then say what failed."""
        self.hub.begin(permitted, self.sandbox_choices)
        with self.starting(self.hub.still_starting()):
            await self.hub.start(permitted, self.sandbox_choices)
        catalog = self.router.rebuild()
        for name, status in self.hub.statuses().items():
            if status.phase == "failed":
                self.notify(ServerFailed(name, status.detail or ""))
            elif status.phase == "needs_login":
                self.notify(LoginNeeded(name, status.detail or ""))
        for left_out in catalog.left_out:
            self.notify(left_out)

    def _remember_sandbox(self, name: str, choice: SandboxChoice | None) -> None:
        if choice is None:
            self.sandbox_choices.pop(name, None)
        else:
            self.sandbox_choices[name] = choice

    def summaries(self) -> tuple[ServerSummary, ...]:
        standing = self.trust.standing(self.reviews())
        return summarize(
            self.config,
            self.hub.statuses(),
            standing.states,
            self.router.current(),
            repository_rules=standing.rules,
            changes=standing.changes,
            sandbox_choices=standing.sandbox_choices,
            facts=self.facts(),
        )

    def facts(self, *, take_errors: bool = False) -> dict[str, ServerFacts]:
        """What each running server said of itself; `take_errors` hands its unseen error-level
        log messages to this view (each is shown once)."""
        facts = {}
        for connection in self.hub.connections():
            info = connection.info
            errors = connection.log.take_errors() if take_errors else ()
            listening = connection.listening
            updates = tuple((u.uri, u.at) for u in listening.recent)
            facts[connection.name] = ServerFacts(
                info.protocol, info.name, info.version, info.offers, errors, len(listening.watched), updates
            )
        return facts

    def instructions(self) -> list[tuple[str, str]]:
        """(server, its `instructions`, capped) of every running server that gave some."""
        return [(c.name, c.info.instructions) for c in self.hub.connections() if c.info.instructions]

    def list_view(self, *, take_errors: bool = False) -> ListView:
        stale = stale_approvals(self.config, self.store.approved_servers(self.workspace))
        summaries = self.summaries()
        if take_errors:
            facts = self.facts(take_errors=True)
            summaries = tuple(dataclasses.replace(s, facts=facts.get(s.name, s.facts)) for s in summaries)
        return ListView(summaries, self.config.problems, stale, self.store.warning, list_notes(self.config))

    async def describe(self, name: str, *, start: bool = True) -> ServerDescription | None:
        """`mcp get`: one server as every view shows it, its launch reviewed once; first started,
        when `start` and the launch gate lets it (through the gate, asking this runtime's
        approver). None when no server has that name."""
        spec = self.config.server(name)
        if spec is None:
            return None
        permitted = await self.admit([spec]) if start else []
        if permitted:
            await self.launch(permitted)
        summary = next(s for s in self.summaries() if s.name == name)
        changed = summary.trust == "changed"
        approved = self.store.approved_servers(self.workspace).get(name) if changed else None
        return ServerDescription(summary, bool(permitted), approved)

    async def restart(self) -> None:
        """A new chat: every server ends (whole process groups); config, allow-list and approvals
        are read again (so `mcp revoke`, `disable` or an edit since take effect), and the gate runs."""
        await self.switch_profile(self.config.profile)

    async def switch_profile(self, profile: str | None) -> None:
        """Start `profile`'s servers (None: all) in place of the running ones, through the gate,
        as a restart does: a new start, so a new plan. Raises ConfigError, with nothing stopped,
        for a profile not defined."""
        settings = load_settings(self.workspace, self.settings.user_file, managed=self.settings.managed)
        early = EarlyStart(plan_servers(self.workspace, settings, profile=profile))
        self.settings, self.config = settings, early.plan.config
        await self.hub.renew(
            hub_options(self.workspace, roots=self.roots, answers=self.answers, early=early), early
        )
        self.seen.clear()
        self.gate.store = TrustStore(self.store.path)
        self.router.allowances.store = self.store
        self.router.tool_policy.clear()
        self.router.tool_policy.update(self.config.tool_policy)
        self.router.managed = self.config.managed
        await self.start()

    async def stop(self, name: str) -> Stopped:
        """End one running server (its whole process group); its tools leave the next request."""
        if self.hub.connection(name) is None:
            return Stopped(name, was_running=False)
        await self.hub.stop(name)
        self.router.rebuild()
        return Stopped(name, was_running=True)

    async def call_tool(
        self, server: str, tool: str, arguments: Mapping[str, object], *, whole: bool = False
    ) -> ToolOutcome:
        """`mcp call`: one tool called as the model's calls are, with no card (the user typed it);
        the result capped as the model's is, or `whole`."""
        return await self.hub.call(server, tool, arguments, whole=whole)

    async def restart_server(self, name: str) -> Restarted:
        """`/mcp restart NAME`: end one server (if it runs, or is still starting) and start it
        again with its entry as this chat loaded it, through the launch gate like any start; its
        tools are listed again. The other servers are left alone."""
        spec = self.config.server(name)
        if spec is None:
            return Restarted(name, None, tuple(s.name for s in self.config.servers))
        await self.hub.reset(name)
        permitted = await self.admit([spec])
        self.hub.begin(permitted, self.sandbox_choices)
        with self.starting([s.name for s in permitted]):
            await self.hub.start(permitted, self.sandbox_choices)
        catalog = self.router.rebuild()
        for left_out in catalog.left_out:
            if left_out.server == name:
                self.notify(left_out)
        return Restarted(name, next(s for s in self.summaries() if s.name == name))

    async def revoke(self, name: str) -> Revoked:
        """Forget a repository server's approval for this workspace; a running server is left alone."""
        if not self.trust.revoke(name):
            return Revoked(name, self.workspace, was_approved=False)
        self.seen.pop(name, None)
        return Revoked(
            name, self.workspace, was_approved=True, still_running=self.hub.connection(name) is not None
        )

    async def close(self) -> None:
        await self.hub.reap_all()
