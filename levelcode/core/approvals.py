"""One approval interface for every gate: built-in commands and edits, MCP calls, MCP launches.

An approver answers a request with a `Choice`. Anything that is not an explicit yes — Ctrl-C,
teardown, no terminal, an exception inside the approver — is a denial: `decide_or_deny` enforces
that for every implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

PURE = True

ApprovalKind = Literal["command", "edit", "mcp_call", "mcp_launch", "mcp_sampling"]
# "sandboxed" / "sandboxed_workspace": approve an MCP server's launch inside the sandbox (its own
# folder only / the workspace as well); "review_each": approves nothing, the servers a summary card
# lists are asked about one card at a time; "save_rule": allow a command and keep `rule` in the
# user's settings. Each is offered only where a request lists it in `answers`.
Choice = Literal["once", "always", "deny", "sandboxed", "sandboxed_workspace", "review_each", "save_rule"]


@dataclass(frozen=True)
class Answer:
    """One answer a request offers besides "deny": the key that gives it, and what it does."""

    key: str
    choice: Choice
    label: str


@dataclass(frozen=True)
class ApprovalRequest:
    kind: ApprovalKind
    title: str  # one line: "Run command", "MCP call · filesystem · read_text_file"
    body: tuple[str, ...] = ()  # shown literally, line by line (command, arguments, diff, env …)
    warning: str | None = None  # why it is flagged, when it is
    allow_always: bool = False  # whether "always allow" is offered
    always_label: str = "always allow"  # what "always" would do, in words
    note: str | None = None  # why it asks when it otherwise would not (e.g. no sandbox here)
    # The decisive lines (inline code, loader env, secrets sent, unpinned packages): shown first and
    # again beside the answer, and never folded away, however long the body is.
    summary: tuple[str, ...] = ()
    full_view: str | None = None  # where to see all of a body folded to fit the screen
    # Every line in full, when `body` cuts some (a long argument): the card offers to show it.
    full_body: tuple[str, ...] = ()
    # Allowing it runs something outside the sandbox: the yes needs a second, deliberate key.
    lifts_sandbox: bool = False
    # When given, exactly these answers are offered (in this order, then "deny"), instead of
    # "once" (and "always" when allowed).
    answers: tuple[Answer, ...] = ()
    rule: str | None = None  # what "save_rule" keeps in the user's settings (a command rule)


class Approver(Protocol):
    @property
    def interactive(self) -> bool: ...

    async def decide(self, request: ApprovalRequest) -> Choice: ...


class HeadlessApprover:
    """Nobody to ask: everything that reaches an approver is denied."""

    @property
    def interactive(self) -> bool:
        return False

    async def decide(self, request: ApprovalRequest) -> Choice:
        return "deny"


async def decide_or_deny(approver: Approver, request: ApprovalRequest) -> Choice:
    """The approver's answer; a denial when it raises (unanswered = denied). A cancellation is not
    an answer: CancelledError is no Exception, so it passes through."""
    try:
        choice = await approver.decide(request)
    except Exception:
        return "deny"
    if request.answers:
        return choice if choice in {answer.choice for answer in request.answers} else "deny"
    if choice == "always" and not request.allow_always:
        return "once"
    return choice if choice in ("once", "always") else "deny"
