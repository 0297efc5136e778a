"""Text and JSON views of the MCP server summary (mcp/overview.py), for `mcp list` and `/mcp`."""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.errors import ConfigProblem
from levelcode.mcp.overview import ServerSummary
from levelcode.ui.visible import visible


def render_list(
    summaries: Sequence[ServerSummary], problems: Sequence[ConfigProblem], *, store_warning: str | None = None
) -> str:
    if not summaries:
        lines = [
            "No MCP servers are configured.",
            "Add one with: levelcode mcp add NAME -- COMMAND [ARGS...]",
        ]
    else:
        lines = []
        for summary in summaries:
            lines.append(visible(f"{summary.name} · {summary.state} · {summary.tier} · {summary.file}"))
            lines.append(f"  {visible(summary.launch)}")
            if summary.state in ("needs approval", "command changed — needs approval"):
                lines.append(f"  approve with: levelcode mcp trust {summary.name}")
            if summary.tools:
                lines.append(f"  tools ({len(summary.tools)}):")
                lines.extend(f"    {tool.name}  [{tool.decision}]" for tool in summary.tools)
            if summary.dropped:
                lines.append(f"  {summary.dropped} more tools over the per-server cap were left out")
    if store_warning:
        lines.append(f"warning: {store_warning}")
    lines.extend(f"problem: {p}" for p in problems)
    return "\n".join(lines)


def summaries_json(
    summaries: Sequence[ServerSummary], problems: Sequence[ConfigProblem]
) -> dict[str, object]:
    servers = [
        {
            "name": s.name,
            "state": s.state,
            "tier": s.tier,
            "file": s.file,
            "launch": s.launch,
            "trust": s.trust,
            "tools": [
                {"name": t.name, "tool": t.tool, "decision": t.decision, "reason": t.reason} for t in s.tools
            ],
            "dropped": s.dropped,
        }
        for s in summaries
    ]
    return {"servers": servers, "problems": [str(p) for p in problems]}
