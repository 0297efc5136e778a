"""The trust questions of one workspace, the CLI's one door to them: what a repository's server's
launch is now, whether it starts unasked, what the organisation blocks, what is approved, and the
user's own answers (`mcp trust`: reconsider; `mcp revoke`: forget) — all through the launch gate.

Cheap to build (no hub, nothing spawned): `mcp trust`, `mcp revoke` and `mcp login` build it
alone; a running session reaches the same one as `McpRuntime.trust`. Never words anything.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from levelcode.core.approvals import Approver
from levelcode.mcp.config.allow_rules import AllowRule
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch.gate import LaunchGate, blocked_by_organisation
from levelcode.mcp.launch.server_box import SandboxChoice
from levelcode.mcp.launch.trust import LaunchReview, Reconsidered, TrustState
from levelcode.mcp.launch.trust_store import TrustStore


@dataclass(frozen=True)
class TrustStanding:
    """Where each reviewed repository server stands here, as every view shows it."""

    states: dict[str, TrustState]
    changes: dict[str, str]  # of a "changed" one: what changed
    rules: dict[str, dict[str, AllowRule]]  # what the user answered "always" for, while approved
    sandbox_choices: dict[str, SandboxChoice]  # how an approved one runs boxed


class WorkspaceTrust:
    """One workspace's approvals, asked and changed only through its launch gate (`gate`)."""

    def __init__(self, workspace: Path, store: TrustStore | None = None) -> None:
        self.workspace = workspace
        self.gate = LaunchGate(workspace, store or TrustStore())

    @property
    def store(self) -> TrustStore:
        return self.gate.store

    @property
    def warning(self) -> str | None:
        """Why the trust store could not be read as it was (it was set aside), or None."""
        return self.store.warning

    def review(self, spec: ServerSpec) -> LaunchReview | None:
        """A repository server's launch as it is on disk now, checked; None for the user's own."""
        return self.gate.review(spec)

    def may_start_unasked(self, spec: ServerSpec) -> bool:
        """Whether the gate lets it start with nobody asked (the user's own, or approved here)."""
        return self.gate.may_start_unasked(spec)

    @staticmethod
    def blocked_by_organisation(spec: ServerSpec) -> str | None:
        """Why the organisation's policy keeps `spec` from starting, as said; None when it does not."""
        return blocked_by_organisation(spec)

    def approved_servers(self) -> dict[str, str]:
        """server name → the launch text recorded when it was approved here (stale ones too)."""
        return self.store.approved_servers(self.workspace)

    def standing(self, reviews: Mapping[str, LaunchReview]) -> TrustStanding:
        """Each reviewed server's standing, from its review (its files are not hashed again)."""
        store, workspace = self.store, self.workspace
        return TrustStanding(
            states={name: review.state for name, review in reviews.items()},
            changes={name: r.check.change for name, r in reviews.items() if r.check.change},
            rules={
                name: store.tool_allowances(workspace, review.spec, state=review.state)
                for name, review in reviews.items()
            },
            sandbox_choices={
                name: choice
                for name, review in reviews.items()
                if review.state == "approved"
                and (choice := store.sandbox_choice(workspace, review.spec)) is not None
            },
        )

    async def reconsider(
        self, spec: ServerSpec, approver: Approver, *, provider_keys: Collection[str] = ()
    ) -> Reconsidered:
        """`mcp trust`: a denial forgotten, then the launch card of exactly what would run shown to
        `approver` (its answer recorded) — or returned to be shown, when it cannot answer. The
        sandbox offered is the one this machine can set up now."""
        return await self.gate.reconsider(spec, approver, provider_keys=provider_keys)

    def revoke(self, name: str) -> bool:
        """Forget `name`'s approval here; False when there was none (another LevelCode may have)."""
        return self.store.revoke(self.workspace, name)

    def revoke_all(self) -> int:
        """Forget every approval here; how many there were."""
        return self.store.revoke_all(self.workspace)
