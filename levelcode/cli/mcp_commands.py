"""`levelcode mcp …`: see the configured servers, call one tool by hand, approve a repo's server.

Every command that starts servers goes through the same launch gate as the agent
(mcp/runtime.py), shows tools under the names the model sees, and prints what the model gets.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from rich.console import Console

from levelcode.agent.approvals import HeadlessApprover
from levelcode.cli.aio import run_command
from levelcode.mcp.cards import launch_card
from levelcode.mcp.overview import launch_text
from levelcode.mcp.runtime import McpRuntime, approval_hint, load_config
from levelcode.mcp.trust import needs_launch_approval
from levelcode.mcp.trust_store import TrustStore
from levelcode.tools.registry import builtin_tools
from levelcode.ui.mcp_views import render_list, summaries_json
from levelcode.ui.visible import visible


def workspace_of(args: argparse.Namespace) -> Path:
    return Path(getattr(args, "workspace", None) or ".").resolve()


def builtin_names() -> frozenset[str]:
    return frozenset(tool.name for tool in builtin_tools())


def run_mcp_command(args: argparse.Namespace) -> int:
    handlers = {"list": mcp_list, "call": mcp_call, "trust": mcp_trust}
    handler = handlers.get(args.mcp_command)
    if handler is None:
        print(f"levelcode: unknown mcp action {args.mcp_command!r}", file=sys.stderr)
        return 2
    return handler(args)


def progress(message: str) -> None:
    print(f"levelcode: {message}", file=sys.stderr, flush=True)


def mcp_list(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    config = load_config(workspace)
    runtime = McpRuntime(workspace, config, HeadlessApprover(), reserved=builtin_names())

    async def main() -> int:
        if config.servers and sys.stderr.isatty():
            progress(f"starting {len(config.servers)} MCP server(s)…")
        await runtime.start()
        summaries = runtime.summaries()
        if args.json:
            print(json.dumps(summaries_json(summaries, config.problems), indent=2))
        else:
            print(render_list(summaries, config.problems, store_warning=runtime.store.warning))
        return 0

    return run_command(main, runtime.close)


def mcp_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        print(f"levelcode: ARGUMENTS must be a JSON object: {exc}", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print('levelcode: ARGUMENTS must be a JSON object such as \'{"path": "README.md"}\'', file=sys.stderr)
        return 2
    workspace = workspace_of(args)
    config = load_config(workspace)
    spec = config.server(args.server)
    if spec is None:
        names = ", ".join(s.name for s in config.servers) or "none"
        print(f"levelcode: no MCP server named {args.server!r} (configured: {names})", file=sys.stderr)
        return 2
    only = dataclasses.replace(config, servers=(spec,))
    runtime = McpRuntime(workspace, only, HeadlessApprover(), reserved=builtin_names(), notify=progress)

    async def main() -> int:
        progress(f"starting {spec.name}…")
        await runtime.start()
        if runtime.hub.connection(spec.name) is not None:
            progress(f"calling {spec.name}/{args.tool}…")
        text, is_error = await runtime.hub.call(spec.name, args.tool, arguments)
        print(text)
        return 1 if is_error else 0

    return run_command(main, runtime.close)


def mcp_trust(args: argparse.Namespace) -> int:
    """Show a repository server's literal launch and ask; record the approval for this workspace."""
    workspace = workspace_of(args)
    config = load_config(workspace)
    spec = config.server(args.server)
    if spec is None:
        names = ", ".join(s.name for s in config.servers if needs_launch_approval(s)) or "none"
        print(
            f"levelcode: no MCP server named {args.server!r} here (repository servers: {names})",
            file=sys.stderr,
        )
        return 2
    if not needs_launch_approval(spec):
        print(f"{spec.name!r} is your own server ({spec.provenance.file}); it starts without approval.")
        return 0
    store = TrustStore()
    trust = store.state(workspace, spec)
    if trust == "approved":
        print(f"{spec.name!r} is already approved for {workspace}: {launch_text(spec)}")
        return 0
    card = launch_card(spec, trust, workspace)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("\n".join(visible(line) for line in (card.title, *card.body)))
        print(
            f"\nlevelcode: nothing approved: run `levelcode mcp trust {spec.name}` in a terminal to answer."
        )
        return 1
    from levelcode.ui.approval_card import TerminalApprover

    async def main() -> int:
        choice = await TerminalApprover(Console()).decide(card)
        if choice == "deny":
            print(f"Not approved. {approval_hint(spec, trust).split(': ', 1)[0]}.")
            return 1
        store.approve(workspace, spec, launch_text(spec))
        print(f"Approved: LevelCode will start {spec.name!r} in {workspace}.")
        print("If its command, arguments or env change, it will ask again.")
        return 0

    return run_command(main)
