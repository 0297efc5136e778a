"""`levelcode mcp …`: see the configured servers, call one tool by hand.

Both start servers through the same launch gate as the agent (mcp/runtime.py), show tools under
the names the model sees, and print what the model would get.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from levelcode.cli.aio import run_command
from levelcode.mcp import runtime
from levelcode.mcp.catalog import build_catalog
from levelcode.mcp.config import McpConfig, ServerSpec, StdioServerSpec
from levelcode.mcp.hub import McpHub, ServerState
from levelcode.mcp.policy import classify_mcp_tool


def workspace_of(args: argparse.Namespace) -> Path:
    return Path(getattr(args, "workspace", None) or ".").resolve()


def run_mcp_command(args: argparse.Namespace) -> int:
    if args.mcp_command == "list":
        return mcp_list(args)
    if args.mcp_command == "call":
        return mcp_call(args)
    print(f"levelcode: unknown mcp action {args.mcp_command!r}", file=sys.stderr)
    return 2


def progress(message: str) -> None:
    print(f"levelcode: {message}", file=sys.stderr, flush=True)


def mcp_list(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    config = runtime.load_config(workspace)
    hub = runtime.make_hub(workspace)

    async def main() -> int:
        if config.servers and sys.stderr.isatty():
            progress(f"starting {len(config.servers)} MCP server(s)…")
        await runtime.start_permitted(hub, config.servers)
        rows = _rows(config, hub)
        if args.json:
            print(json.dumps({"servers": rows, "problems": [str(p) for p in config.problems]}, indent=2))
        else:
            print(_render_rows(rows, config))
        return 0

    return run_command(main, hub.reap_all)


def _rows(config: McpConfig, hub: McpHub) -> list[dict[str, object]]:
    catalog = build_catalog(hub.listings())
    by_server: dict[str, list[dict[str, object]]] = {}
    for tool in catalog.tools:
        route = catalog.routes[tool.name]
        verdict = classify_mcp_tool(tool.name, route.annotations, config.tool_policy)
        by_server.setdefault(route.server, []).append(
            {"name": tool.name, "tool": route.tool, "decision": verdict.decision, "reason": verdict.reason}
        )
    rows: list[dict[str, object]] = []
    for spec in config.servers:
        state = hub.states.get(spec.name)
        rows.append(
            {
                "name": spec.name,
                "state": _state_text(state),
                "tier": spec.provenance.tier,
                "file": spec.provenance.file,
                "launch": launch_text(spec),
                "tools": by_server.get(spec.name, []),
            }
        )
    return rows


def _state_text(state: ServerState | None) -> str:
    if state is None:
        return "not started"
    if state.status == "running":
        return "running"
    if state.status == "failed":
        return f"failed: {state.reason}"
    return state.reason or state.status


def launch_text(spec: ServerSpec) -> str:
    if isinstance(spec, StdioServerSpec):
        import shlex

        return shlex.join((spec.command, *spec.args))
    return spec.url


def _render_rows(rows: list[dict[str, object]], config: McpConfig) -> str:
    if not rows:
        lines = [
            "No MCP servers are configured.",
            "Add one with: levelcode mcp add NAME -- COMMAND [ARGS...]",
        ]
    else:
        lines = []
        for row in rows:
            lines.append(f"{row['name']} · {row['state']} · {row['tier']} · {row['file']}")
            lines.append(f"  {row['launch']}")
            tools = row["tools"]
            if isinstance(tools, list) and tools:
                lines.append(f"  tools ({len(tools)}):")
                lines.extend(f"    {t['name']}  [{t['decision']}]" for t in tools if isinstance(t, Mapping))
    lines.extend(f"problem: {p}" for p in config.problems)
    return "\n".join(lines)


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
    config = runtime.load_config(workspace)
    spec = config.server(args.server)
    if spec is None:
        names = ", ".join(s.name for s in config.servers) or "none"
        print(f"levelcode: no MCP server named {args.server!r} (configured: {names})", file=sys.stderr)
        return 2
    hub = runtime.make_hub(workspace)

    async def main() -> int:
        progress(f"starting {spec.name}…")
        await runtime.start_permitted(hub, [spec])
        if hub.connection(spec.name) is not None:
            progress(f"calling {spec.name}/{args.tool}…")
        text, is_error = await hub.call(spec.name, args.tool, arguments)
        print(text)
        return 1 if is_error else 0

    return run_command(main, hub.reap_all)
