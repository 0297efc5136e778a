"""`levelcode mcp list` and `levelcode mcp call`, and the one-server runtime the content commands
(content_commands.py) use.

Every command that starts servers goes through the same launch gate as the agent
(mcp/live/runtime.py), shows tools under the names the model sees, and prints what the model gets:
on a terminal with control characters escaped (ui/visible.py) and cut as the model's result is,
into a pipe or a file byte for byte and whole (a script wants all of it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from levelcode.cli.printing import fail, say, workspace_of

if TYPE_CHECKING:
    from levelcode.core.errors import ConfigProblem
    from levelcode.mcp.config.specs import ServerSpec
    from levelcode.mcp.live.overview import ListView
    from levelcode.mcp.live.runtime import McpRuntime


def progress(message: str) -> None:
    from levelcode.ui.visible import visible_block  # imported late: `mcp list` spawns before it

    print(f"levelcode: {visible_block(message)}", file=sys.stderr, flush=True)


def one_server(
    args: argparse.Namespace, *, model_names: bool = False
) -> tuple[McpRuntime, ServerSpec] | None:
    """The runtime for only the server `args.server` names (the launch gate as ever, nobody to
    ask, notices said on stderr); None, and said, when no server has that name. `model_names`:
    `args.server` may be a tool's name as the model sees it (SERVER__TOOL, `mcp call`)."""
    from levelcode.cli.mcp.config_report import reported_plan, unread_note
    from levelcode.core.approvals import HeadlessApprover
    from levelcode.mcp.live.runtime import McpRuntime
    from levelcode.tools.names import BUILTIN_TOOL_NAMES
    from levelcode.ui.mcp_words import notice_words

    plan = reported_plan(workspace_of(args), profile=getattr(args, "profile", None))
    config = plan.config
    spec = config.server(args.server)
    if spec is None and model_names:
        spec = config.server(server_of_tool_name(args.server, [s.name for s in config.servers]) or "")
        if spec is not None:  # SERVER__TOOL [ARGUMENTS]: the words move up one place
            args.server, args.tool, args.arguments = spec.name, args.server, args.tool
    if spec is None:
        names = ", ".join(s.name for s in config.servers) or "none"
        progress(f"no MCP server named {args.server!r} (configured: {names})")
        say(*unread_note(config.problems), err=True)
        return None
    notify = lambda notice: progress(notice_words(notice))  # noqa: E731
    runtime = McpRuntime.planned(
        plan.only(spec), HeadlessApprover(), reserved=BUILTIN_TOOL_NAMES, notify=notify
    )
    return runtime, spec


# `levelcode mcp list`'s exit status (documented in its --help and the README): 0 when nothing is
# wrong (servers awaiting approval, or disabled, are not failures); LIST_FAILED when a server
# failed to start, or a configuration file or a server's entry could not be used; else
# LIST_NEEDS_LOGIN when a remote server needs `levelcode mcp login`.
LIST_FAILED = 1
LIST_NEEDS_LOGIN = 3


def list_status(view: ListView) -> int:
    phases = {summary.status.phase for summary in view.summaries}
    if "failed" in phases or any(p.whole_file or p.not_loaded for p in view.problems):
        return LIST_FAILED
    return LIST_NEEDS_LOGIN if "needs_login" in phases else 0


def mcp_list(args: argparse.Namespace) -> int:
    """Imports are lazy here: the user's own servers are spawned first, and boot meanwhile. The
    configuration files that could not be used are said first, on stderr."""
    from levelcode.mcp.launch.server_plan import plan_servers
    from levelcode.mcp.live.early_start import start_planned
    from levelcode.platform.settings_files import load_settings

    workspace = workspace_of(args)
    plan = plan_servers(workspace, load_settings(workspace), profile=getattr(args, "profile", None))
    early = start_planned(plan)
    from levelcode.cli.aio import run_command
    from levelcode.cli.start.light_start import runtime_for

    runtime = runtime_for(plan, early=early)
    config = runtime.config
    from levelcode.cli.mcp.config_report import say_unusable_files

    unusable = say_unusable_files(config.problems)

    import asyncio

    async def main() -> int:
        if config.servers and sys.stderr.isatty():
            count = len(config.servers)
            progress(f"starting {count} MCP server{'' if count == 1 else 's'}…")
        await runtime.begin_trusted()  # they boot while the views are imported
        from levelcode.ui.mcp_views import summaries_json

        await runtime.start()
        view = runtime.list_view()
        stopping = asyncio.ensure_future(runtime.close())  # the servers stop while the list prints
        try:
            if args.json:
                print(json.dumps(summaries_json(view), indent=2))
            else:
                print_view(view, unusable, verbose=getattr(args, "verbose", False))
        finally:
            await stopping
        return list_status(view)

    return run_command(main, runtime.close)


def print_view(view: ListView, said: Sequence[ConfigProblem], *, verbose: bool) -> None:
    """The list on stdout. Into a pipe or a file it is the plain text, printed without rich (most of
    what a listing would import otherwise); rich's console is made only where rich could call the
    output a terminal: a tty, or an environment that says so (TTY_COMPATIBLE, FORCE_COLOR)."""
    if not (sys.stdout.isatty() or "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ):
        from levelcode.ui.mcp_views import render_list

        print(render_list(view, said=said, verbose=verbose))
        return
    from levelcode.ui.mcp_views_terminal import print_list
    from levelcode.ui.output_console import OutputConsole

    print_list(OutputConsole(soft_wrap=False), view, said=said, verbose=verbose)


def server_of_tool_name(typed: str, servers: list[str]) -> str | None:
    """The configured server whose tools the model sees as `typed` (SERVER__TOOL, the server's
    part as the catalog makes it); None when `typed` is no such name."""
    from levelcode.mcp.calls.naming import assign_server_parts, split_tool_name

    split = split_tool_name(typed)
    if split is None:
        return None
    return next((name for name, part in assign_server_parts(servers).items() if part == split[0]), None)


def mcp_call(args: argparse.Namespace) -> int:
    from levelcode.cli.aio import run_command
    from levelcode.ui.visible import visible_block

    typed, third = args.server, args.arguments
    found = one_server(args, model_names=True)
    if found is None:
        return 2
    if typed != args.server and third is not None:  # SERVER__TOOL stood for two words: one too many
        return fail(f"{typed} names the tool already; give its arguments once, after it", 2)
    if args.tool is None:
        return fail(f"name the tool: levelcode mcp call {args.server} TOOL [ARGUMENTS]", 2)
    try:
        arguments = json.loads(args.arguments or "{}")
    except json.JSONDecodeError as exc:
        print(f"levelcode: ARGUMENTS must be a JSON object: {exc}", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print('levelcode: ARGUMENTS must be a JSON object such as \'{"path": "README.md"}\'', file=sys.stderr)
        return 2
    runtime, spec = found

    async def main() -> int:
        progress(f"starting {spec.name}…")
        await runtime.start()
        tool = args.tool
        if runtime.connection(spec.name) is not None:
            names = tool_names(runtime, spec.name)
            tool = resolve_tool(args.tool, names) if names else args.tool
            if tool is None:
                first, *more = unknown_tool_lines(spec.name, args.tool, names)
                return fail(first, 2, *more)
            progress(f"calling {spec.name}/{tool}…")
        on_terminal = sys.stdout.isatty()  # piped or redirected: a script gets the whole result
        outcome = await runtime.call_tool(spec.name, tool, arguments, whole=not on_terminal)
        print(visible_block(outcome.text) if on_terminal else outcome.text)
        return 1 if outcome.is_error else 0

    return run_command(main, runtime.close)


ToolNames = list[tuple[str, str]]  # (the name the model sees, or "" where it sees none; the server's)


def tool_names(runtime: McpRuntime, server: str) -> ToolNames:
    """Every tool the server listed, with the name the model sees it by where it sees one."""
    seen = next((summary.tools for summary in runtime.summaries() if summary.name == server), ())
    names = [(line.name, line.tool) for line in seen]
    connection = runtime.connection(server)
    listed = [tool.get("name") for tool in connection.tools] if connection is not None else []
    known = {tool for _, tool in names}
    return names + [("", name) for name in listed if isinstance(name, str) and name not in known]


def resolve_tool(typed: str, names: ToolNames) -> str | None:
    """The server's own name for the tool typed by either name (the server's first)."""
    if any(typed == tool for _, tool in names):
        return typed
    return next((tool for model, tool in names if model and typed == model), None)


def unknown_tool_lines(server: str, typed: str, names: ToolNames) -> list[str]:
    import difflib
    import shlex

    prefix = f"{server}__"  # compared without it: every model's name shares it
    either = {tool: tool for _, tool in names} | {m.removeprefix(prefix): t for m, t in names if m}
    close = difflib.get_close_matches(typed.removeprefix(prefix), list(either), n=3, cutoff=0.6)
    near = dict.fromkeys(either[name] for name in close)
    first = f"{server!r} has no tool named {typed!r}"
    if near:
        first += f"; did you mean {' or '.join(shlex.quote(tool) for tool in near)}?"
    tools = sorted(tool for _, tool in names)
    shown = ", ".join(shlex.quote(tool) for tool in tools[:30]) + (", …" if len(tools) > 30 else "")
    return [first, f"Its tools: {shown} (the model's names, such as {server}__TOOL, work too)."]
