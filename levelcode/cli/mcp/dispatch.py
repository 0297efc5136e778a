"""The dispatch of every `levelcode mcp` action to the module that runs it, each imported only when
its action is asked for (`mcp list` first of all: its servers start before anything else loads).
Never runs an action itself.
"""

from __future__ import annotations

import argparse
import sys

from levelcode.cli.mcp.list_and_call import mcp_call, mcp_list


def run_mcp_command(args: argparse.Namespace) -> int:
    if args.mcp_command == "list":  # first, before the other commands' imports: its servers start
        return mcp_list(args)
    from levelcode.cli.mcp.add import mcp_add, mcp_add_json
    from levelcode.cli.mcp.content_commands import mcp_prompt, mcp_prompts, mcp_read, mcp_resources
    from levelcode.cli.mcp.import_servers import run_claude_desktop_import, run_import_command
    from levelcode.cli.mcp.manage import ACTIONS, run_manage_command
    from levelcode.cli.mcp.remove import mcp_remove
    from levelcode.cli.mcp.trust_commands import mcp_revoke, mcp_trust

    handlers = {
        "list": mcp_list,
        "call": mcp_call,
        "add": mcp_add,
        "add-json": mcp_add_json,
        "remove": mcp_remove,
        "trust": mcp_trust,
        "revoke": mcp_revoke,
        "import": run_import_command,
        "add-from-claude-desktop": run_claude_desktop_import,
        "search": _search_command,
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
    from levelcode.cli.mcp.login import mcp_login, mcp_logout

    return mcp_login(args) if args.mcp_command == "login" else mcp_logout(args)


def _search_command(args: argparse.Namespace) -> int:
    """`search`: imported only when run (it loads the HTTP client)."""
    from levelcode.cli.mcp.registry import mcp_search

    return mcp_search(args)
