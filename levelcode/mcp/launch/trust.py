"""Launch fingerprints and trust decisions for gate G1 (workspace servers start only when trusted).

Pure: never reads or writes the trust store (trust_store.py does) nor the files a launch runs
(inspection.py does). Trust is keyed on what would run, not on the server's name: a SHA-256
over a structural encoding of the command, its arguments, its env (sorted `[key, value]` pairs)
and its cwd as the card shows them — the `${VAR}` of the command and arguments filled in at load,
a secret's left as its reference, env values as written (config/launch_expansion.py) — and, for a
repository's stdio server, over the facts of what that text runs: the resolved program and the
content of the workspace files it runs.
Structural means a JSON array, never `k=v` text, so `{"a": "b=c"}` and `{"a=b": "c"}` differ.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from levelcode.core.approvals import ApprovalRequest
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, entry_fingerprint, launch_encoding
from levelcode.mcp.launch.server_box import SandboxChoice

PURE = True

FACTS_SCHEME = "levelcode-launch/2"
MISSING = "missing"  # the digest of a file the launch would run if it were there
CUT_NOTE = "more files than are checked"  # where a folder's listing stopped at its bound
MAX_NAMED_CHANGES = 3
OLD_APPROVAL = "approved before LevelCode checked the files it runs"

# "denied": the user said no to exactly this launch here, and it is not asked about again until
# they ask for it (`levelcode mcp trust NAME`); a changed launch is asked about as ever.
TrustState = Literal["never_approved", "approved", "changed", "denied"]


@dataclass(frozen=True)
class LaunchFacts:
    """What a launch's text runs, found on disk just before it starts (inspection.py)."""

    program: str | None = None  # absolute path after the PATH lookup; None when not found
    files: tuple[tuple[str, str], ...] = ()  # (workspace-relative path, sha256 or MISSING), sorted
    unpinned: str | None = None  # "npx -y pkg" and the like: the registry decides what runs

    def digests(self) -> dict[str, str]:
        return dict(self.files)


@dataclass(frozen=True)
class ApprovedLaunch:
    """What the trust store recorded when the user approved."""

    fingerprint: str
    command: str | None = None  # the fingerprint of the text alone; None in records before facts
    program: str | None = None
    files: Mapping[str, str] = field(default_factory=dict[str, str])
    sandbox: SandboxChoice | None = None  # approved sandboxed ("own", "workspace"), or unconfined
    # whether its files include what the interpreter can import from its folder (approvals before
    # LevelCode checked those did not list them: their first appearance is no change of the files)
    imports: bool = True


@dataclass(frozen=True)
class TrustCheck:
    state: TrustState
    change: str | None = None  # when changed, what: "command changed", "server.py changed", …


@dataclass(frozen=True)
class LaunchReview:
    """One server's launch as it is now, and what the trust store makes of it."""

    spec: ServerSpec
    facts: LaunchFacts | None
    check: TrustCheck

    @property
    def state(self) -> TrustState:
        return self.check.state


def is_cut_note(digest: str) -> bool:
    return digest.startswith(CUT_NOTE)


def launch_fingerprint(spec: ServerSpec, facts: LaunchFacts | None = None) -> str:
    """The text alone without facts (user servers, HTTP); text, program and files with them."""
    if facts is None:
        return entry_fingerprint(spec)
    files = [list(pair) for pair in facts.files]
    text = json.dumps(
        [FACTS_SCHEME, launch_encoding(spec), facts.program, files], ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def approved_launch(
    spec: ServerSpec, facts: LaunchFacts | None, sandbox: SandboxChoice | None = None
) -> ApprovedLaunch:
    """What to record when the user approves this launch with these facts, sandboxed or not."""
    return ApprovedLaunch(
        fingerprint=launch_fingerprint(spec, facts),
        command=launch_fingerprint(spec),
        program=facts.program if facts else None,
        files=facts.digests() if facts else {},
        sandbox=sandbox,
    )


def check_trust(
    spec: ServerSpec,
    facts: LaunchFacts | None,
    recorded: ApprovedLaunch | None,
    denied: str | None = None,
) -> TrustCheck:
    """Never approved, approved, or approved once and then changed — and what changed; or denied,
    when `denied` (the fingerprint of the launch the user said no to) is this very launch."""
    fingerprint = launch_fingerprint(spec, facts)
    if recorded is not None and recorded.fingerprint == fingerprint:
        return TrustCheck("approved")
    if denied == fingerprint:
        return TrustCheck("denied")
    if recorded is None:
        return TrustCheck("never_approved")
    return TrustCheck("changed", describe_change(spec, facts, recorded))


def trust_state(spec: ServerSpec, recorded: str | None, facts: LaunchFacts | None = None) -> TrustState:
    """The state alone, against a bare recorded fingerprint."""
    return check_trust(spec, facts, ApprovedLaunch(recorded) if recorded else None).state


def describe_change(spec: ServerSpec, facts: LaunchFacts | None, recorded: ApprovedLaunch) -> str:
    """The change in a few words, the launch text first: "command changed", "server.py changed"."""
    text = launch_fingerprint(spec)
    if recorded.command is None:
        if recorded.fingerprint == text and facts is not None:
            return OLD_APPROVAL
        return "command changed"
    if recorded.command != text or facts is None or isinstance(spec, HttpServerSpec):
        return "command changed"
    if recorded.program != facts.program:
        return f"{spec.command} now resolves to {facts.program or 'nothing (not found)'}"
    now = facts.digests()
    if not recorded.imports and _only_added(recorded.files, now):
        return OLD_APPROVAL
    return describe_files(recorded.files, now) or "command changed"


def _only_added(before: Mapping[str, str], now: Mapping[str, str]) -> bool:
    """Every difference is a file listed now that the approval did not list at all."""
    return all(name not in before for name in before.keys() | now.keys() if before.get(name) != now.get(name))


def describe_files(before: Mapping[str, str], now: Mapping[str, str]) -> str | None:
    """`server.py changed`, `lib.py was removed`, `mod.py appeared`; None when nothing differs."""
    changed = sorted(name for name in before.keys() | now.keys() if before.get(name) != now.get(name))
    if not changed:
        return None
    words = [f"{name} {_how(before.get(name), now.get(name))}" for name in changed[:MAX_NAMED_CHANGES]]
    if len(changed) > MAX_NAMED_CHANGES:
        words.append(f"{len(changed) - MAX_NAMED_CHANGES} more files changed")
    return ", ".join(words)


def _how(before: str | None, now: str | None) -> str:
    if before in (None, MISSING):
        return "appeared"
    if now in (None, MISSING):
        return "was removed"
    return "changed"


def since_approval(change: str | None) -> str:
    """A change as a sentence, for cards and notices: "its command changed since you approved it",
    "server.py changed since you approved it"."""
    if change is None or change == "command changed":
        return "its command changed since you approved it"
    if change == OLD_APPROVAL:
        return f"it was {change}"
    return f"{change} since you approved it"


def needs_launch_approval(spec: ServerSpec) -> bool:
    """Only repository-authored servers pass through G1; the user's own start without asking."""
    return spec.provenance.tier == "workspace"


ReconsiderOutcome = Literal[
    "approved", "already_approved", "denied", "unanswered", "no_sandbox", "own_server", "blocked"
]


@dataclass(frozen=True)
class Reconsidered:
    """`mcp trust`: what became of one server asked about on the user's request."""

    outcome: ReconsiderOutcome
    review: LaunchReview | None = None
    sandbox: SandboxChoice | None = None
    card: ApprovalRequest | None = None
    reason: str | None = None  # no_sandbox, blocked: why
