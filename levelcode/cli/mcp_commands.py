"""`levelcode mcp list` and `levelcode mcp call`, and the dispatch of every `levelcode mcp` action.

Every command that starts servers goes through the same launch gate as the agent
(mcp/runtime.py), shows tools under the names the model sees, and prints what the model gets:
on a terminal with control characters escaped (ui/visible.py), into a pipe byte for byte.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING

from levelcode.cli.printing import workspace_of

if TYPE_CHECKING:
    from levelcode.mcp.config.specs import ServerSpec
    from levelcode.mcp.runtime import McpRuntime


def run_mcp_command(args: argparse.Namespace) -> int:
    if args.mcp_command == "list":  # first, before the other commands' imports: its servers start
        return mcp_list(args)
    from levelcode.cli.mcp_content_commands import mcp_prompt, mcp_prompts, mcp_read, mcp_resources
    from levelcode.cli.mcp_import import run_import_command
    from levelcode.cli.mcp_manage import ACTIONS, run_manage_command
    from levelcode.cli.mcp_trust_commands import mcp_revoke, mcp_trust

    handlers = {
        "list": mcp_list,
        "call": mcp_call,
        "trust": mcp_trust,
        "revoke": mcp_revoke,
        "import": run_import_command,
        "login": _sign_in_command,
        "logout": _sign_in_command,
        "resources": mcp_resources,
        "read": mcp_read,
        "prompts": mcp_prompts,
        "prompt": mcp_prompt,
    }
    handlers.update(dict.fromkeys(ACTIONS, run_manage_command))
    handler = handlers.get(args.mcp_command)
    if handler is None:
        print(f"levelcode: unknown mcp action {args.mcp_command!r}", file=sys.stderr)
        return 2
    return handler(args)


def _sign_in_command(args: argparse.Namespace) -> int:
    """`login`/`logout`: imported only when run (they load the remote stack)."""
    from levelcode.cli.mcp_login import mcp_login, mcp_logout

    return mcp_login(args) if args.mcp_command == "login" else mcp_logout(args)


def progress(message: str) -> None:
    from levelcode.ui.visible import visible_block  # imported late: `mcp list` spawns before it

    print(f"levelcode: {visible_block(message)}", file=sys.stderr, flush=True)


def one_server(args: argparse.Namespace) -> tuple[McpRuntime, ServerSpec] | None:
    """The runtime for only the server `args.server` names (the launch gate as ever, nobody to
    ask, notices said on stderr); None, and said, when no server has that name."""
    from levelcode.core.approvals import HeadlessApprover
    from levelcode.mcp.config.files import load_mcp_config
    from levelcode.mcp.runtime import McpRuntime
    from levelcode.tools.names import BUILTIN_TOOL_NAMES
    from levelcode.ui.mcp_words import notice_words

    workspace = workspace_of(args)
    config = load_mcp_config(workspace)
    spec = config.server(args.server)
    if spec is None:
        names = ", ".join(s.name for s in config.servers) or "none"
        progress(f"no MCP server named {args.server!r} (configured: {names})")
        return None
    only = dataclasses.replace(config, servers=(spec,))
    notify = lambda notice: progress(notice_words(notice))  # noqa: E731
    runtime = McpRuntime(workspace, only, HeadlessApprover(), reserved=BUILTIN_TOOL_NAMES, notify=notify)
    return runtime, spec


def mcp_list(args: argparse.Namespace) -> int:
    """Imports are lazy here: the user's own servers are spawned first, and boot meanwhile."""
    from levelcode.core.settings import load_settings
    from levelcode.mcp.connect_options import session_options
    from levelcode.mcp.early_start import start_user_servers

    workspace = workspace_of(args)
    settings = load_settings(workspace)
    early = start_user_servers(settings, session_options(workspace, settings))
    from levelcode.cli.aio import run_command
    from levelcode.cli.session_start import runtime_for

    runtime = runtime_for(workspace, settings, early=early)
    config = runtime.config

    import asyncio

    async def main() -> int:
        if config.servers and sys.stderr.isatty():
            progress(f"starting {len(config.servers)} MCP server(s)…")
        await runtime.begin_trusted()  # they boot while the views are imported
        from levelcode.ui.mcp_views import print_list, summaries_json

        await runtime.start()
        view = runtime.list_view()
        stopping = asyncio.ensure_future(runtime.close())  # the servers stop while the list prints
        try:
            if args.json:
                print(json.dumps(summaries_json(view), indent=2))
            else:
                from rich.console import Console

                print_list(Console(soft_wrap=False), view)
        finally:
            await stopping
        return 0

    return run_command(main, runtime.close)


def mcp_call(args: argparse.Namespace) -> int:
    from levelcode.cli.aio import run_command
    from levelcode.ui.visible import visible_block

    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        print(f"levelcode: ARGUMENTS must be a JSON object: {exc}", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print('levelcode: ARGUMENTS must be a JSON object such as \'{"path": "README.md"}\'', file=sys.stderr)
        return 2
    found = one_server(args)
    if found is None:
        return 2
    runtime, spec = found

    async def main() -> int:
        progress(f"starting {spec.name}…")
        await runtime.start()
        if runtime.hub.connection(spec.name) is not None:
            progress(f"calling {spec.name}/{args.tool}…")
        outcome = await runtime.hub.call(spec.name, args.tool, arguments)
        print(visible_block(outcome.text) if sys.stdout.isatty() else outcome.text)
        return 1 if outcome.is_error else 0

    return run_command(main, runtime.close)
