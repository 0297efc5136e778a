"""`levelcode mcp trust` and `levelcode mcp revoke`: the user's side of the launch gate (G1).

`trust` asks about a repository server through the launch gate (mcp/launch/gate.py), the
terminal as its approver: the literal launch, and the answer recorded (a denial it forgets first);
`revoke` forgets approvals — one, stale ones included, or every one for this workspace. Both ask
and write through the workspace's trust door (mcp/launch/workspace_trust.py); the wording is theirs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from levelcode.cli.aio import run_command
from levelcode.cli.mcp.config_report import load_reported_config
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.connect_options import settings_api_key
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust import Reconsidered, needs_launch_approval, since_approval
from levelcode.mcp.launch.workspace_trust import WorkspaceTrust
from levelcode.platform.settings_files import load_settings

STILL_RUNNING = (
    "A LevelCode session already running {name} in {workspace} keeps it until that session ends or\n"
    "starts a new chat (/new), which asks again. This command does not stop it."
)


def mcp_trust(args: argparse.Namespace) -> int:
    """Show a repository server's literal launch and ask (through the launch gate, which forgets a
    denial first); record the answer for this workspace."""
    workspace = workspace_of(args)
    config = load_reported_config(workspace)
    spec = config.server(args.server)
    if spec is None:
        names = ", ".join(s.name for s in config.servers if needs_launch_approval(s)) or "none"
        return fail(f"no MCP server named {args.server!r} here (repository servers: {names})", 2)
    from levelcode.ui.approval_card import TerminalApprover

    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    approver = TerminalApprover(Console()) if terminal else HeadlessApprover()
    keys = settings_api_key(config.settings or load_settings(workspace))
    trust = WorkspaceTrust(workspace)

    async def main() -> int:
        return _said(await trust.reconsider(spec, approver, provider_keys=keys), spec, workspace)

    return run_command(main)


def _said(answer: Reconsidered, spec: ServerSpec, workspace: Path) -> int:
    """`mcp trust`'s words for what the gate made of the user's request."""
    how = "in the sandbox" if answer.sandbox is not None else "unconfined"
    if answer.outcome == "blocked":
        return fail(f"{spec.name!r} cannot be approved: it is {answer.reason}", 1)
    if answer.outcome == "own_server":
        whose = "your own server" if spec.provenance.own else "your organisation's server"
        say(f"{spec.name!r} is {whose} ({spec.provenance.file}); it starts without approval.")
        return 0
    if answer.outcome == "already_approved":
        say(
            f"{spec.name!r} is already approved for {workspace}, {how}: {launch_text(spec)}",
            f"To answer again: levelcode mcp revoke {spec.name}, then levelcode mcp trust {spec.name}",
        )
        return 0
    if answer.outcome == "no_sandbox":
        return fail(
            f"{spec.name!r} asks to run in the sandbox, but no sandbox can be set up here: {answer.reason}", 1
        )
    if answer.outcome == "unanswered" and answer.card is not None:
        card = answer.card
        say(card.title, *(f"! {line}" for line in card.summary), *card.body)
        return fail(f"nothing approved: run `levelcode mcp trust {spec.name}` in a terminal to answer", 1)
    if answer.outcome == "denied":
        say(
            f"Not approved: LevelCode will not start {spec.name!r} in {workspace}.",
            f"It will not ask about this launch again until you run levelcode mcp trust {spec.name}.",
        )
        return 1
    say(
        f"Approved: LevelCode will start {spec.name!r} in {workspace}, {how}.",
        "If its command, arguments or env, or the files it runs, change, it will ask again.",
    )
    return 0


def mcp_revoke(args: argparse.Namespace) -> int:
    if (args.name is None) == (not args.all):
        return fail("give a server NAME, or --all for every approval in this workspace", 2)
    workspace = workspace_of(args)
    trust = WorkspaceTrust(workspace)
    if trust.warning:
        say(f"warning: {trust.warning}", err=True)
    config = load_reported_config(workspace)
    if args.all:
        return _revoke_all(trust, config)
    return _revoke_one(trust, config, args.name)


def _staleness(name: str, config: McpConfig, trust: WorkspaceTrust) -> str | None:
    """Why a stored approval is no longer in use, or None while it still lets the server start."""
    spec = config.server(name)
    if spec is None:
        return "it is no longer configured here"
    review = trust.review(spec)
    if review is None:
        return "the name is now your own server, which needs no approval"
    if review.state == "changed":
        return since_approval(review.check.change).replace("since you approved", "after you approved")
    return None


def _revoke_one(trust: WorkspaceTrust, config: McpConfig, name: str) -> int:
    workspace = trust.workspace
    launch = trust.approved_servers().get(name)
    if launch is None:
        spec = config.server(name)
        if spec is not None and not needs_launch_approval(spec):
            say(
                f"{name!r} is your own server ({spec.provenance.file}): it needs no approval, so there is",
                f"none to forget. To keep it from starting: levelcode mcp disable {name}",
            )
        else:
            say(f"{name!r} was never approved in {workspace}; nothing to forget.")
        return 0
    stale = _staleness(name, config, trust)
    if not trust.revoke(name):  # another LevelCode forgot it meanwhile
        say(f"{name!r} is not approved in {workspace} (any more); nothing to forget.")
        return 0
    if stale is None:
        say(f"Forgot the approval of {name!r} in {workspace} (approved: {launch}).")
    else:
        say(f"Forgot a stale approval of {name!r} in {workspace}: {stale} (approved: {launch}).")
    spec = config.server(name)
    if spec is not None and not needs_launch_approval(spec):
        say(f"Your own {name!r} ({spec.provenance.file}) still starts without asking.")
        return 0
    say(f"LevelCode will ask before starting {name} again in {workspace}.", *_still_running(workspace, name))
    return 0


def _still_running(workspace: Path, name: str) -> list[str]:
    return STILL_RUNNING.format(workspace=workspace, name=name).split("\n")


def _revoke_all(trust: WorkspaceTrust, config: McpConfig) -> int:
    workspace = trust.workspace
    approved = trust.approved_servers()
    if not approved:
        say(f"No approvals are stored for {workspace}; nothing to forget.")
        return 0
    lines = []
    for name, launch in sorted(approved.items()):
        stale = _staleness(name, config, trust)
        lines.append(f"  {name}: {launch}" + (f"  (stale: {stale})" if stale else ""))
    count = trust.revoke_all()
    say(
        f"Forgot {count} approval{'s' if count != 1 else ''} in {workspace}:",
        *lines,
        f"LevelCode will ask before starting a repository's server again in {workspace}.",
        *_still_running(workspace, "them"),
    )
    return 0
