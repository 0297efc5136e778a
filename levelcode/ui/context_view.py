"""`/context`: where this conversation's context goes, as a small aligned table (plain text, so it
reads the same in a terminal and in a pipe)."""

from __future__ import annotations

from levelcode.agent.context_meter import ContextUsage
from levelcode.core.messages import Usage
from levelcode.ui.visible import visible


def _row(label: str, tokens: int, total: int, indent: int = 0, share: bool = True) -> str:
    percent = f"{100 * tokens / total:5.1f}%" if share and total else ""
    return f"  {' ' * indent}{label:<{26 - indent}}{tokens:>10,}  {percent}"


def render_context(usage: ContextUsage, *, last: Usage | None = None) -> str:
    total = usage.total
    lines = ["Context per request (estimated at ~4 characters per token)"]
    lines.append(_row("system prompt", usage.system, total))
    for server, tokens in sorted(usage.instructions_by_server.items(), key=lambda item: -item[1]):
        lines.append(_row(f"{visible(server)}: instructions", tokens, total, indent=2, share=False))
    lines.append(_row("tools", usage.tools, total))
    lines.append(_row("built-in", usage.builtin_tools, total, indent=2, share=False))
    lines.append(_row("MCP", usage.mcp_tools, total, indent=2, share=False))
    for server, tokens in sorted(usage.mcp_by_server.items(), key=lambda item: -item[1]):
        lines.append(_row(server, tokens, total, indent=4, share=False))
    lines.append(_row("messages", usage.messages, total))
    lines.append(_row("total", total, total, share=False))
    if last is not None:
        lines.append(f"  last request: {last.input_tokens:,} input tokens, as reported by the API")
    lines.append(
        "  MCP servers cost their tool schemas on every request; `levelcode mcp disable NAME` saves it."
    )
    return "\n".join(lines)
