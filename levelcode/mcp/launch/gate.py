"""The launch gate (G1), one for every caller: whether each server may start, asked of the caller's
own approver — the REPL's terminal, nobody for `run`, `mcp list` and `mcp login`, the terminal
again (or a printed card) for `mcp trust`.

A server the organisation's policy blocks (its `OrgRule`, config/managed_servers.py) never starts
and is never asked about: no answer of the user's can start it. The user's own servers, and those
the organisation requires, start without asking (unless disabled). A repository's server starts only
when the trust store holds the fingerprint of exactly this launch — its text, the program it
resolves to and the workspace files it runs, hashed as the gate decides and, when a card was open
since, again right before the spawn (`still_as_approved`); otherwise the approver is shown the
consent card, and with nobody to ask it is held back with a notice that names the command that
approves it. Why a server is held is one rule, `held_status` (status.py). A launch the user denied is
remembered (trust store) and not asked about again until they ask (`reconsider`, which is what
`levelcode mcp trust` does) or it changes. More than `MANY_SERVERS` cards at once are preceded by
one card listing them all: review each, or deny them all.

Never starts, contacts or stops a server, and words nothing: it returns typed verdicts and
notices, which the caller applies (the hub's holds) and words (ui/mcp_words.py).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.core.approvals import ApprovalRequest, Approver, decide_or_deny
from levelcode.mcp.config.environment import provider_keys_withheld, withheld_references
from levelcode.mcp.config.expanded_fields import expanded_fields
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.launch_card import launch_card, many_launches_card
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.server_box import SandboxChoice, asks_for_sandbox, sandbox_choice_of, why_sandboxed
from levelcode.mcp.launch.status import (
    DenialNotSaved,
    LaunchesDenied,
    LaunchHeld,
    McpNotice,
    ServerBlocked,
    ServerStatus,
    held_status,
)
from levelcode.mcp.launch.trust import LaunchReview, Reconsidered, ReconsiderOutcome, needs_launch_approval
from levelcode.mcp.launch.trust_store import TrustStore

if TYPE_CHECKING:
    from levelcode.sandbox.confinement import Confinement

MANY_SERVERS = 3  # more cards than this at once are preceded by one card that lists them all


def kept_from(spec: ServerSpec, extra_values: Collection[str]) -> list[str]:
    """The provider keys a repository's server asks for through `${VAR}` in any expanded field
    and will not receive."""
    withheld = provider_keys_withheld(os.environ, extra_values)
    return withheld_references((f.value for f in expanded_fields(spec)), os.environ, withheld)


def sandbox_missing(spec: ServerSpec, confinement: Confinement | None = None) -> str | None:
    """Why a launch card cannot offer the sandbox here; None when it can (or the server is remote)."""
    if not isinstance(spec, StdioServerSpec):
        return None
    # imported here: only a card asks, and the sandbox's modules are a tenth of `mcp list`'s imports
    from levelcode.sandbox.confinement import current_confinement

    confinement = confinement or current_confinement(network=False)
    return None if confinement.available else confinement.reason


@dataclass(frozen=True)
class Verdict:
    """One server's passage through the gate. `starts`, with how (`sandbox`); or held back with the
    status the hub should show (`held`), and the card that was — or would have been — shown."""

    spec: ServerSpec
    starts: bool
    sandbox: SandboxChoice | None = None
    held: ServerStatus | None = None
    review: LaunchReview | None = None
    card: ApprovalRequest | None = None
    answered: bool = False  # the user answered about it now: `review` is as it was before the answer


@dataclass
class Admission:
    """What the gate let through, in the configured order, and what it held back and said."""

    verdicts: list[Verdict] = field(default_factory=list[Verdict])
    notices: list[McpNotice] = field(default_factory=list[McpNotice])

    @property
    def starting(self) -> list[ServerSpec]:
        return [v.spec for v in self.verdicts if v.starts]


def blocked_by_organisation(spec: ServerSpec) -> str | None:
    """Why the organisation's policy keeps `spec` from starting, as said; None when it does not."""
    return spec.organisation.blocked if spec.organisation is not None else None


class LaunchGate:
    def __init__(self, workspace: Path, store: TrustStore) -> None:
        self.workspace = workspace
        self.store = store
        self.denied: set[str] = set()  # denied in this process: not asked again, even if changed
        self.unsaved: list[DenialNotSaved] = []  # denials the trust store could not record, to be said

    def review(self, spec: ServerSpec) -> LaunchReview | None:
        """A repository server's launch as it is on disk now, checked; None for the user's own."""
        return self.store.review(self.workspace, spec) if needs_launch_approval(spec) else None

    def may_start_unasked(self, spec: ServerSpec) -> bool:
        """Whether it starts without a card: not blocked, not disabled, and the user's own (or the
        organisation's) or approved here."""
        if held_status(spec) is not None:
            return False
        review = self.review(spec)
        return review is None or held_status(spec, review.state) is None

    async def admit(
        self,
        specs: Sequence[ServerSpec],
        approver: Approver,
        *,
        confinement: Confinement | None = None,
        provider_keys: Collection[str] = (),
    ) -> Admission:
        """Every server through the gate, asking `approver` where it must: one card per server,
        after one that lists them all when there are more than MANY_SERVERS."""
        settled: dict[str, Verdict] = {}
        asking: list[LaunchReview] = []
        for spec in specs:
            verdict = self._unasked(spec, approver, confinement)
            if isinstance(verdict, Verdict):
                settled[spec.name] = verdict
            else:
                asking.append(verdict)
        if len(asking) > MANY_SERVERS and not await self._review_each(asking, approver):
            settled.update((r.spec.name, self._deny(r, None)) for r in asking)
            asking = []
        for review in asking:
            settled[review.spec.name] = await self._ask(review, approver, confinement, provider_keys)
        admission = Admission([settled[spec.name] for spec in specs])
        admission.notices.extend(self._held_notices(admission.verdicts))
        admission.notices.extend(self.unsaved)
        self.unsaved.clear()
        return admission

    def _unasked(
        self, spec: ServerSpec, approver: Approver, confinement: Confinement | None
    ) -> Verdict | LaunchReview:
        """The verdict reached without a card, or the review a card must ask about."""
        held = held_status(spec)
        if held is not None:  # blocked or disabled: nothing is hashed, nobody is asked
            return Verdict(spec, False, held=held)
        review = self.review(spec)
        if review is None:
            return Verdict(spec, starts=True)
        held = ServerStatus("denied") if spec.name in self.denied else held_status(spec, review.state)
        if held is None:
            return Verdict(spec, True, self.store.sandbox_choice(self.workspace, spec), review=review)
        if held.phase == "denied" or not approver.interactive:
            return Verdict(spec, False, held=held, review=review)
        missing = sandbox_missing(spec, confinement)
        if missing is not None and asks_for_sandbox(spec):  # fail closed: never unconfined instead
            detail = f"{why_sandboxed(spec)}, but no sandbox can be set up here: {missing}"
            return Verdict(spec, False, held=ServerStatus("failed", detail + "; not started"), review=review)
        return review

    async def _review_each(self, reviews: Sequence[LaunchReview], approver: Approver) -> bool:
        card = many_launches_card(reviews, self.workspace)
        return await decide_or_deny(approver, card) == "review_each"

    async def _ask(
        self,
        review: LaunchReview,
        approver: Approver,
        confinement: Confinement | None,
        provider_keys: Collection[str],
    ) -> Verdict:
        """One consent card; the answer recorded (an approval, or a denial)."""
        card = self.card(review, confinement, provider_keys)
        choice = await decide_or_deny(approver, card)
        if choice == "deny":
            return self._deny(review, card)
        sandbox = sandbox_choice_of(choice)
        self.store.approve(
            self.workspace, review.spec, launch_text(review.spec), review.facts, sandbox=sandbox
        )
        return Verdict(review.spec, True, sandbox, review=review, card=card, answered=True)

    def card(
        self,
        review: LaunchReview,
        confinement: Confinement | None = None,
        provider_keys: Collection[str] = (),
    ) -> ApprovalRequest:
        missing = sandbox_missing(review.spec, confinement)
        withheld = kept_from(review.spec, provider_keys)
        return launch_card(review, self.workspace, withheld, sandbox_missing=missing)

    def _deny(self, review: LaunchReview, card: ApprovalRequest | None) -> Verdict:
        spec = review.spec
        self.denied.add(spec.name)
        try:
            self.store.deny(self.workspace, spec, launch_text(spec), review.facts)
        except OSError as exc:  # held back all the same; only the memory of the answer is lost
            self.unsaved.append(DenialNotSaved(spec.name, str(exc)))
        return Verdict(spec, False, held=ServerStatus("denied"), review=review, card=card, answered=True)

    def _held_notices(self, verdicts: Sequence[Verdict]) -> list[McpNotice]:
        """A notice for each server held for want of someone to ask, and one for those the user
        had denied before (this session's answers need no notice: they were just given)."""
        notices: list[McpNotice] = []
        remembered = []
        for verdict in verdicts:
            review = verdict.review
            if verdict.held is not None and verdict.held.phase == "blocked":
                notices.append(ServerBlocked(verdict.spec.name, verdict.held.detail or ""))
            if verdict.held is None or review is None:
                continue
            if verdict.held.phase == "waiting_approval":
                notices.append(self.held_notice(review))
            elif verdict.held.phase == "denied" and verdict.card is None and review.state == "denied":
                remembered.append(verdict.spec.name)
        if remembered:
            notices.append(LaunchesDenied(tuple(remembered)))
        return notices

    def held_notice(self, review: LaunchReview) -> LaunchHeld:
        spec = review.spec
        return LaunchHeld(spec.name, spec.provenance.file, review.state, review.check.change)

    def still_as_approved(self, permitted: Sequence[ServerSpec]) -> Admission:
        """Hash the repository servers' files again right before the spawn, after a card was open
        (the runtime asks when one was): what changed since the check, or while the card was open,
        is not what was approved. With no card, the check itself was right before the spawn. (The
        moment between this and the spawn itself remains: a check-to-use window.)"""
        admission = Admission()
        for spec in permitted:
            review = self.review(spec) if held_status(spec) is None else None
            held = held_status(spec, review.state if review is not None else None)
            admission.verdicts.append(Verdict(spec, held is None, held=held, review=review))
        admission.notices.extend(self._held_notices(admission.verdicts))
        return admission

    async def reconsider(
        self,
        spec: ServerSpec,
        approver: Approver,
        *,
        confinement: Confinement | None = None,
        provider_keys: Collection[str] = (),
    ) -> Reconsidered:
        """The user asks about one server (`levelcode mcp trust`): a denial is forgotten, and the
        card shown to `approver` — or, when it cannot answer, returned to be shown."""
        blocked = blocked_by_organisation(spec)
        if blocked is not None:
            return Reconsidered("blocked", reason=blocked)
        if not needs_launch_approval(spec):
            return Reconsidered("own_server")
        self.store.forget_denial(self.workspace, spec.name)
        self.denied.discard(spec.name)
        review = self.store.review(self.workspace, spec)
        if review.state == "approved":
            choice = self.store.sandbox_choice(self.workspace, spec)
            return Reconsidered("already_approved", review, choice)
        missing = sandbox_missing(spec, confinement)
        if missing is not None and asks_for_sandbox(spec):
            return Reconsidered("no_sandbox", review, reason=missing)
        if not approver.interactive:
            return Reconsidered("unanswered", review, card=self.card(review, confinement, provider_keys))
        verdict = await self._ask(review, approver, confinement, provider_keys)
        outcome: ReconsiderOutcome = "approved" if verdict.starts else "denied"
        return Reconsidered(outcome, review, verdict.sandbox, verdict.card)
