"""`levelcode mcp get`'s live part: the server's state, its tools as the model sees them (allow/ask,
unannotated/read-only/destructive) and where a cap on its text bit, as `mcp list` shows them; and
whether it runs in the sandbox.

Starts only a server the launch gate lets start without asking — your own, or a repository's that
is approved for this workspace, and not disabled — through the same runtime as the agent; a server
that needs approval is described, never started.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from levelcode.cli.aio import run_command
from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.config.specs import McpConfig, ServerSpec, StdioServerSpec
from levelcode.mcp.launch.gate import LaunchGate
from levelcode.mcp.launch.server_box import server_box
from levelcode.mcp.launch.status import ServerStatus, held_status
from levelcode.mcp.launch.trust import TrustState, needs_launch_approval
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.overview import ServerSummary, ToolLine
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.tools.names import BUILTIN_TOOL_NAMES
from levelcode.ui.mcp_views import (
    caps_json,
    confinement_json,
    facts_json,
    facts_line,
    tool_entry,
    tools_line,
)
from levelcode.ui.mcp_words import state_words, summary_state


def sandbox_info(
    spec: ServerSpec, store: TrustStore, workspace: Path, trust: TrustState | None
) -> dict[str, object] | None:
    """Whether it runs confined, and how, as `mcp list` says it; None for a remote server."""
    if not isinstance(spec, StdioServerSpec):
        return None
    choice = store.sandbox_choice(workspace, spec) if trust == "approved" else None
    return confinement_json(server_box(spec, choice), spec.provenance.tier, trust)


def may_start_without_asking(spec: ServerSpec, store: TrustStore, workspace: Path) -> bool:
    return LaunchGate(workspace, store).may_start_unasked(spec)


def live_info(spec: ServerSpec, config: McpConfig, store: TrustStore, workspace: Path) -> dict[str, Any]:
    """`state`, `tools`, `caps` and `schemaTokens`; the server is started only when it may be."""
    if not may_start_without_asking(spec, store, workspace):
        review = store.review(workspace, spec) if needs_launch_approval(spec) else None
        status = held_status(spec, review.state if review else None) or ServerStatus("not_started")
        trust, change = (review.state, review.check.change) if review else (None, None)
        state = state_words(status, trust, change, server=spec.name)
        return {"state": state, "phase": status.phase, "tools": [], "caps": None, "schemaTokens": 0}
    summary = _start_and_summarize(spec, config, store, workspace)
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


def _start_and_summarize(
    spec: ServerSpec, config: McpConfig, store: TrustStore, workspace: Path
) -> ServerSummary:
    only = dataclasses.replace(config, servers=(spec,))
    runtime = McpRuntime(workspace, only, HeadlessApprover(), reserved=BUILTIN_TOOL_NAMES, store=store)
    found: list[ServerSummary] = []

    async def main() -> int:
        if sys.stderr.isatty():
            print(f"levelcode: starting {spec.name}… (--no-start shows the entry only)", file=sys.stderr)
        await runtime.start()
        found.extend(runtime.summaries())
        return 0

    run_command(main, runtime.close)
    return found[0]


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
