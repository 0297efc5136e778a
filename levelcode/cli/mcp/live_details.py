"""`levelcode mcp get`'s view of one server, asked of the runtime (`McpRuntime.describe`): its state,
trust and confinement as `mcp list` says them, and — once started — its tools as the model sees
them (allow/ask, unannotated/read-only/destructive) and where a cap on its text bit.

The runtime starts only a server the launch gate lets start without asking — your own, or a
repository's that is approved for this workspace, and not disabled — as the agent would; a server
that needs approval is described, never started. Its launch is reviewed once, by the gate.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from levelcode.mcp.live.overview import ServerSummary, ToolLine
from levelcode.ui.mcp_views import (
    caps_json,
    confinement_json,
    facts_json,
    facts_line,
    tool_entry,
    tools_line,
)
from levelcode.ui.mcp_words import summary_state

if TYPE_CHECKING:
    from levelcode.mcp.config.specs import ServerSpec
    from levelcode.mcp.launch.server_plan import ServerPlan
    from levelcode.mcp.live.overview import ServerDescription


def describe_server(spec: ServerSpec, plan: ServerPlan, *, start: bool) -> ServerDescription:
    """`spec` as the runtime describes it, started first when `start` and the gate lets it."""
    from levelcode.cli.aio import run_command
    from levelcode.core.approvals import HeadlessApprover
    from levelcode.mcp.live.runtime import McpRuntime
    from levelcode.tools.names import BUILTIN_TOOL_NAMES

    runtime = McpRuntime.planned(plan.only(spec), HeadlessApprover(), reserved=BUILTIN_TOOL_NAMES)
    runtime.starting = _said_on_a_terminal
    found: list[ServerDescription] = []

    async def main() -> int:
        described = await runtime.describe(spec.name, start=start)
        assert described is not None  # `spec` is the one server of its configuration
        found.append(described)
        return 0

    run_command(main, runtime.close)
    return found[0]


def _said_on_a_terminal(names: Sequence[str]) -> AbstractContextManager[object]:
    if names and sys.stderr.isatty():
        print(f"levelcode: starting {names[0]}… (--no-start shows the entry only)", file=sys.stderr)
    return contextlib.nullcontext()


def sandbox_info(summary: ServerSummary) -> dict[str, object] | None:
    """Whether it runs confined, and how, as `mcp list` says it; None for a remote server."""
    return None if summary.remote else confinement_json(summary.sandbox, summary.tier, summary.trust)


def live_info(described: ServerDescription) -> dict[str, Any]:
    """`state`, `tools`, `caps` and `schemaTokens`: what the server showed once started."""
    summary = described.summary
    if not described.started:
        return {"state": summary_state(summary), "phase": summary.status.phase, "tools": [], "caps": None,
                "schemaTokens": 0}  # fmt: skip
    return {
        "state": summary_state(summary),
        "tools": [
            {"name": t.name, "tool": t.tool, "decision": t.decision, "kind": t.kind, "reason": t.reason}
            for t in summary.tools
        ],
        "caps": caps_json(summary),
        "schemaTokens": summary.schema_tokens,
        "summary": tools_line(summary),
        "facts": facts_line(summary),
        **facts_json(summary),
    }


def live_lines(live: dict[str, Any]) -> list[str]:
    """The live part of `mcp get`'s text: state, the tools line with its caps, each tool."""
    if live["state"] == "disabled" or live.get("phase") in ("disabled", "blocked"):
        return []  # the state line above says so already
    if live["caps"] is None:
        return [f"  live:    not started ({live['state']}); mcp get starts only what may start unasked"]
    lines = [f"  live:    {live['state']}"]
    if live.get("facts"):
        lines.append(f"  speaks:  {live['facts']}")
    if live.get("summary"):
        lines.append(f"  tools:   {live['summary']}")
    for t in live["tools"]:
        line = ToolLine(name=t["name"], tool=t["tool"], decision=t["decision"], reason="", kind=t["kind"])
        lines.append(tool_entry(live["name"], line))
    return lines
