"""One server's state, and what the MCP layer tells the session, as data; the words are the ui's.

Pure. `ServerStatus.phase` says where a server is; whether a repository's server is approved, and
what changed since, travel beside it as the launch review (trust state and change), never as text
to be parsed back. Notices are typed for the same reason: the runtime says *what* happened, the
ui (`ui/mcp_words.py`) says it in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch.trust import TrustState

PURE = True

Phase = Literal[
    "not_started",  # nothing tried yet this session (or start-up was interrupted)
    "starting",
    "running",
    "failed",  # `detail` holds what went wrong, in the error's own words
    "disabled",  # `"disabled": true` in its entry
    "stopped",  # ended in this session (`/mcp stop`, a new chat)
    "waiting_approval",  # the launch gate holds it: never approved, or changed since (see trust)
    "denied",  # the user said no to its card (this session, or to this very launch before)
    "needs_login",  # a remote server wants the user to sign in, and nobody could be asked here
    "blocked",  # the organisation's policy does not let it start (`detail`: why, as said)
]


@dataclass(frozen=True)
class ServerStatus:
    phase: Phase
    detail: str | None = None

    @property
    def running(self) -> bool:
        return self.phase == "running"


NOT_STARTED = ServerStatus("not_started")


def held_status(spec: ServerSpec, trust: TrustState | None = None) -> ServerStatus | None:
    """The one rule for why a server does not start unasked, as the status the launch gate holds
    it with and every view shows: blocked by the organisation's policy, disabled, or — a
    repository's, by its launch's `trust` — waiting for approval (never approved, or changed
    since) or denied; None when nothing holds it. Blocked and disabled need no `trust`: they are
    settled before any file the launch runs is hashed."""
    if spec.organisation is not None and spec.organisation.blocked is not None:
        return ServerStatus("blocked", spec.organisation.blocked)
    if spec.disabled:
        return ServerStatus("disabled", spec.disabled_by)
    if trust in ("never_approved", "changed"):
        return ServerStatus("waiting_approval")
    if trust == "denied":
        return ServerStatus("denied")
    return None


@dataclass(frozen=True)
class LaunchHeld:
    """A repository's server was not started: it needs the user's approval (headless: nobody to ask)."""

    server: str
    file: str
    trust: TrustState
    change: str | None = None  # what changed since the approval, when trust is "changed"


@dataclass(frozen=True)
class LaunchesDenied:
    """Repository servers not started because the user denied exactly these launches before."""

    servers: tuple[str, ...]


@dataclass(frozen=True)
class ServerFailed:
    server: str
    detail: str


@dataclass(frozen=True)
class McpNote:
    """Something already said by the part that knows it (a cap that bit, the trust store's warning)."""

    text: str
    warning: bool = False


@dataclass(frozen=True)
class LoginNeeded:
    """A remote server was not connected: it needs `levelcode mcp login NAME` (detail: at which
    authorization server, and why, in the sign-in's own words)."""

    server: str
    detail: str


@dataclass(frozen=True)
class ServerBlocked:
    """A server the organisation's policy keeps from starting; `detail` says why, naming the policy."""

    server: str
    detail: str


@dataclass(frozen=True)
class DenialNotSaved:
    """The user denied a server's launch, but the trust store could not keep the answer: it is held
    back all the same, and will be asked about again next time."""

    server: str
    reason: str


@dataclass(frozen=True)
class ToolLeftOut:
    """A tool not offered to the model: its definition is over the cap even with its schema's
    descriptions removed (calls/catalog.py)."""

    server: str
    tool: str
    chars: int
    limit: int


McpNotice = (
    LaunchHeld
    | LaunchesDenied
    | ServerFailed
    | LoginNeeded
    | DenialNotSaved
    | ToolLeftOut
    | McpNote
    | ServerBlocked
)


@dataclass(frozen=True)
class Stopped:
    """`/mcp stop NAME`: whether it was running (then it has ended, and its tools leave the next
    request)."""

    server: str
    was_running: bool


@dataclass(frozen=True)
class Revoked:
    """`/mcp revoke NAME`: whether there was an approval in `workspace` to forget, and whether the
    server still runs in this session (revoking leaves it running)."""

    server: str
    workspace: Path
    was_approved: bool
    still_running: bool = False
