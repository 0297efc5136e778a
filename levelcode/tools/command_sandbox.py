"""The model's commands and the session's sandbox: this command's policy, the note a card carries
when there is no sandbox, the check after a confined command that moves away the git control
entries it planted, and the one run outside the sandbox a person may allow after it blocked
something. Whether a command may run at all is decided elsewhere (command_approval.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from levelcode.core.approvals import ApprovalRequest, decide_or_deny
from levelcode.sandbox.confinement import Wrap, planted_git_control
from levelcode.sandbox.policy import SandboxPolicy
from levelcode.tools.base import ToolContext
from levelcode.tools.output_caps import visible_control_chars

NO_SANDBOX_SET_UP = "no sandbox was set up for this session"
UNCONFINED_WARNING = (
    "Runs OUTSIDE the sandbox: it can write anywhere you can, read your secrets and use the network"
)


def command_confinement(ctx: ToolContext) -> tuple[SandboxPolicy, Wrap] | None:
    """The sandbox policy for a command started now, and the wrapper that applies it; None when
    commands run unconfined."""
    if ctx.sandbox is None or not ctx.sandbox.available:
        return None
    policy = ctx.sandbox.policy_for(ctx.workspace, ctx.extra_roots)
    return policy, ctx.sandbox.wrap(policy)


async def planted_after(ctx: ToolContext, policy: SandboxPolicy) -> list[str]:
    """Once a confined command has ended (or while a long one runs): move away the git control
    entries it planted; the `[sandbox]` lines for its result, also told to the user."""
    lines = await asyncio.to_thread(planted_git_control, policy)
    tell_user(ctx, lines)
    return lines


def planted_after_now(ctx: ToolContext, policy: SandboxPolicy) -> None:
    """The same check where nothing can be awaited any more (a cancelled command): it blocks."""
    tell_user(ctx, planted_git_control(policy))


def tell_user(ctx: ToolContext, lines: Sequence[str]) -> None:
    if lines and ctx.notify is not None:
        ctx.notify("\n".join(lines))


def unconfined_note(ctx: ToolContext) -> str | None:
    """What a command's card says when there is no sandbox; None when there is one."""
    if ctx.sandbox is not None and ctx.sandbox.available:
        return None
    reason = ctx.sandbox.reason if ctx.sandbox is not None else NO_SANDBOX_SET_UP
    return f"there is no sandbox here ({reason}), so every command needs approval and runs unconfined"


def rerun_request(command: str, refusals: Sequence[str]) -> ApprovalRequest:
    blocked = "; ".join(r.removeprefix("[sandbox] ") for r in refusals)
    return ApprovalRequest(
        kind="command",
        title="Run again outside the sandbox",
        body=tuple(visible_control_chars(line) for line in command.split("\n")),
        warning=f"{UNCONFINED_WARNING}. The sandbox blocked it: {blocked}",
        allow_always=False,
        lifts_sandbox=True,
    )


async def rerun_allowed(ctx: ToolContext, command: str, refusals: Sequence[str]) -> bool | None:
    """Whether a person allows one run outside the sandbox; None when nobody can be asked."""
    if ctx.approver is None or not ctx.approver.interactive:
        return None
    return await decide_or_deny(ctx.approver, rerun_request(command, refusals)) != "deny"
