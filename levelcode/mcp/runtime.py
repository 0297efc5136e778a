"""The MCP layer for one workspace: config → launch gate (G1, mcp/launch/gate.py) → hub → router,
and the summary every view shows.

The gate decides, asking the session's approver; the runtime applies its verdicts (the hub holds
what may not start, the notices go to the session) and starts the rest.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.core import paths
from levelcode.core.approvals import Approver
from levelcode.core.settings import Settings, load_settings
from levelcode.mcp.client_features import UserAnswers, WorkspaceRoots, features_for, workspace_roots
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import McpConfig, ServerSpec
from levelcode.mcp.connect_options import session_options
from levelcode.mcp.gates.overview import (
    ListView,
    ServerFacts,
    ServerSummary,
    stale_approvals,
    summarize,
)
from levelcode.mcp.gates.server_box import SandboxChoice
from levelcode.mcp.gates.status import LoginNeeded, McpNote, McpNotice, ServerFailed
from levelcode.mcp.gates.trust import LaunchReview, needs_launch_approval
from levelcode.mcp.hub import McpHub
from levelcode.mcp.launch.gate import Admission, LaunchGate
from levelcode.mcp.protocol_memory import ProtocolMemory
from levelcode.mcp.router import McpRouter
from levelcode.mcp.trust_store import TrustStore

if TYPE_CHECKING:
    from levelcode.mcp.early_start import EarlyStart

Notify = Callable[[McpNotice], None]  # the session words them (ui/mcp_words.py)


def _no_progress(_names: Sequence[str]) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


def make_hub(
    workspace: Path,
    settings: Settings | None = None,
    *,
    roots: WorkspaceRoots | None = None,
    answers: UserAnswers | None = None,
    early: EarlyStart | None = None,
) -> McpHub:
    """The hub as a session builds it: the session's options (`early.options` when servers were
    spawned early: they were launched with them), results and protocol memory under the state dir;
    the roots servers are told, and who answers what they ask of the user (nobody, by default)."""
    told = roots or workspace_roots(workspace)
    answering = answers or UserAnswers()
    base = early.options if early is not None else session_options(workspace, settings or Settings())
    options = dataclasses.replace(base, features_for=lambda spec: features_for(spec, told, answering))
    memory = ProtocolMemory(paths.state_dir() / "protocols.json")
    return McpHub(options, memory=memory, results_dir=paths.results_dir(), early=early)


class McpRuntime:
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
        self.gate = LaunchGate(workspace, store or TrustStore())
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
        # wraps the concurrent start of the permitted servers (the REPL shows a spinner there)
        self.starting: Callable[[Sequence[str]], AbstractContextManager[object]] = _no_progress

    @property
    def store(self) -> TrustStore:
        return self.gate.store

    def attach(self, approver: Approver, notify: Notify, *, answers: UserAnswers | None = None) -> None:
        """Who answers the launch gate's and the router's questions, who hears the notices, and who
        answers what servers ask of the user: given when the session opens, after the runtime may
        have begun starting servers (their handlers read `self.answers` when a server asks)."""
        self.approver = approver
        self.router.approver = approver
        self.notify = notify
        if answers is not None:
            self.answers.elicit, self.answers.sample = answers.elicit, answers.sample

    def reviews(self) -> dict[str, LaunchReview]:
        """Each repository server's launch as it is on disk now, checked against the trust store."""
        return {s.name: review for s in self.config.servers if (review := self.gate.review(s)) is not None}

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

    async def admit(self) -> list[ServerSpec]:
        """The launch gate for every server (it may ask the user): the servers that may start."""
        if self.store.warning:
            self.notify(McpNote(self.store.warning, warning=True))
        admission = await self.gate.admit(
            self.config.servers,
            self.approver,
            confinement=self.hub.options.sandbox,
            provider_keys=self.hub.options.provider_key_values,
        )
        self._apply(admission)
        for verdict in admission.verdicts:
            if verdict.starts:
                self._remember_sandbox(verdict.spec.name, verdict.sandbox)
        checked = self.gate.still_as_approved(admission.starting)
        self._apply(checked)
        return checked.starting

    def _apply(self, admission: Admission) -> None:
        """The hub holds what the gate held back; the session hears the gate's notices."""
        for verdict in admission.verdicts:
            if verdict.held is not None:
                self.hub.hold(verdict.spec, verdict.held)
        for notice in admission.notices:
            self.notify(notice)

    async def launch(self, permitted: Sequence[ServerSpec]) -> None:
        """Start the permitted servers (those begun already are waited for), then say what failed."""
        self.hub.options = dataclasses.replace(self.hub.options, sandbox_choices=dict(self.sandbox_choices))
        self.hub.begin(permitted)
        with self.starting(self.hub.still_starting()):
            await self.hub.start(permitted)
        catalog = self.router.rebuild()
        for state in self.hub.states.values():
            if state.status.phase == "failed":
                self.notify(ServerFailed(state.spec.name, state.status.detail or ""))
            elif state.status.phase == "needs_login":
                self.notify(LoginNeeded(state.spec.name, state.status.detail or ""))
        for note in catalog.notes:
            self.notify(McpNote(note))

    def _remember_sandbox(self, name: str, choice: SandboxChoice | None) -> None:
        if choice is None:
            self.sandbox_choices.pop(name, None)
        else:
            self.sandbox_choices[name] = choice

    def summaries(self) -> tuple[ServerSummary, ...]:
        statuses = {name: s.status for name, s in self.hub.states.items()}
        rules = {
            spec.name: self.store.tool_allowances(self.workspace, spec)
            for spec in self.config.servers
            if needs_launch_approval(spec)
        }
        reviews = self.reviews()
        trust = {name: review.state for name, review in reviews.items()}
        changes = {name: r.check.change for name, r in reviews.items() if r.check.change}
        choices = {
            name: choice
            for name, review in reviews.items()
            if review.state == "approved"
            and (choice := self.store.sandbox_choice(self.workspace, review.spec)) is not None
        }
        return summarize(
            self.config,
            statuses,
            trust,
            self.router.current(),
            repository_rules=rules,
            changes=changes,
            sandbox_choices=choices,
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
        return ListView(summaries, self.config.problems, stale, self.store.warning, self._notes())

    def _notes(self) -> list[str]:
        """Under the list: the profile in use, and the organisation's policy, when there is one."""
        notes = []
        if (profile := self.config.profile) is not None:
            notes.append(
                f"Profile {profile!r}: only its servers start (/profile - or no --profile: every server)."
            )
        if (managed := self.config.managed).active:
            notes.append(
                f"Your organisation's policy applies: {managed.file}"
                + (f" ({managed.contact})" if managed.contact else "")
            )
        return notes

    async def restart(self) -> None:
        """A new chat: every server ends (whole process groups); config, allow-list and approvals
        are read again (so `mcp revoke`, `disable` or an edit since take effect), and the gate runs."""
        await self.switch_profile(self.config.profile)

    async def switch_profile(self, profile: str | None) -> None:
        """Start `profile`'s servers (None: all) in place of the running ones, through the gate,
        as a restart does. Raises ConfigError, with nothing stopped, for a profile not defined."""
        settings = load_settings(self.workspace, self.settings.user_file, managed=self.settings.managed)
        config = load_mcp_config(self.workspace, settings, profile=profile)
        await self.hub.reap_all()
        self.hub.states.clear()
        self.settings, self.config = settings, config
        self.hub.options = make_hub(
            self.workspace, self.settings, roots=self.roots, answers=self.answers
        ).options
        self.gate.store = TrustStore(self.store.path)
        self.router.allowances.store = self.store
        self.router.tool_policy.clear()
        self.router.tool_policy.update(self.config.tool_policy)
        self.router.managed = self.config.managed
        await self.start()

    async def stop(self, name: str) -> list[str]:
        """End one running server (its whole process group); its tools leave the next request."""
        if self.hub.connection(name) is None:
            return [f"{name!r} is not running in this session."]
        await self.hub.stop(name)
        self.router.rebuild()
        return [
            f"Stopped {name!r}; its tools are gone from the next request. /new starts it again if permitted."
        ]

    async def revoke(self, name: str) -> list[str]:
        """Forget a repository server's approval for this workspace; a running server is left alone."""
        if not self.store.revoke(self.workspace, name):
            return [f"{name!r} was never approved in {self.workspace}; nothing to forget."]
        lines = [f"Forgot the approval of {name!r}: LevelCode will ask before starting {name} again here."]
        if self.hub.connection(name) is not None:
            lines.append(f"It is still running in this session; /mcp stop {name} stops it now.")
        return lines

    async def close(self) -> None:
        await self.hub.reap_all()
