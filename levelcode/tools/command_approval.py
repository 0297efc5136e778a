"""When a shell command may run without asking: the approval rule for run_command and
start_background_command.

Load-bearing direction: a command the safety classifier flags always asks — autopilot included,
a saved rule included — and never offers "always allow". Only an unflagged command may skip the
question, and only with a sandbox to run it in: on autopilot, or when a rule saved in the user's
settings matches it (tools/command_allow_rules.py). Otherwise the user may allow that exact
command for the rest of the session, or — where a rule can cover exactly it — save it as a rule
(with no sandbox, the card says it would run unconfined, and offers no rule: none would apply).
"""

from __future__ import annotations

from levelcode.core.approvals import Answer, ApprovalRequest
from levelcode.tools.base import Args, ToolContext
from levelcode.tools.command_allow_rules import rule_for
from levelcode.tools.command_check.classify import classify_command
from levelcode.tools.command_sandbox import unconfined_note
from levelcode.tools.output_caps import visible_control_chars

ALWAYS_LABEL = "always allow this exact command this session"
MAX_RULE_IN_LABEL = 60  # a longer rule is the command on the card itself


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
    if note is None and (ctx.autopilot or ctx.command_rules.allowing(command) is not None):
        return None
    rule = rule_for(command) if note is None else None
    return ApprovalRequest(
        kind="command",
        title=title,
        body=body,
        allow_always=True,
        always_label=ALWAYS_LABEL,
        note=note,
        answers=rule_answers(rule) if rule is not None else (),
        rule=rule,
    )


def rule_answers(rule: str) -> tuple[Answer, ...]:
    """A command card's answers when the command can be kept as a rule in the user's settings."""
    named = f"`{rule}`" if len(rule) <= MAX_RULE_IN_LABEL else "this exact command"
    return (
        Answer("y", "once", "allow once"),
        Answer("a", "always", ALWAYS_LABEL),
        Answer(
            "s", "save_rule", f"always allow {named} in every session: save it as a rule in your settings"
        ),
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
