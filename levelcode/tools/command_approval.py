"""When a shell command may run without asking: the approval rule for run_command and
start_background_command.

Load-bearing direction: a command the safety classifier flags always asks — autopilot included —
and never offers "always allow". Only an unflagged command may skip the question, and only on
autopilot with a sandbox to run it in; otherwise the user may allow that exact command for the
rest of the session (and with no sandbox, the card says it would run unconfined).
"""

from __future__ import annotations

from levelcode.core.approvals import ApprovalRequest
from levelcode.tools.base import Args, ToolContext
from levelcode.tools.command_check.classify import classify_command
from levelcode.tools.command_sandbox import unconfined_note
from levelcode.tools.output_caps import visible_control_chars

ALWAYS_LABEL = "always allow this exact command this session"


def command_approval(ctx: ToolContext, command: str, *, title: str) -> ApprovalRequest | None:
    verdict = classify_command(command, ctx.workspace, extra_roots=ctx.extra_roots)
    body = tuple(visible_control_chars(line) for line in command.split("\n"))
    note = unconfined_note(ctx)
    if verdict.flagged:
        return ApprovalRequest(
            kind="command",
            title=title,
            body=body,
            warning="Flagged as potentially dangerous: " + "; ".join(verdict.reasons),
            allow_always=False,
            note=note,
        )
    if ctx.autopilot and note is None:
        return None
    return ApprovalRequest(
        kind="command", title=title, body=body, allow_always=True, always_label=ALWAYS_LABEL, note=note
    )


def _approval_for(title: str, ctx: ToolContext, args: Args) -> ApprovalRequest | None:
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        return None  # nothing runs: the tool refuses a missing or empty command itself
    return command_approval(ctx, command, title=title)


def run_command_approval(ctx: ToolContext, args: Args) -> ApprovalRequest | None:
    return _approval_for("Run command", ctx, args)


def background_command_approval(ctx: ToolContext, args: Args) -> ApprovalRequest | None:
    return _approval_for("Start background command", ctx, args)
