"""`/context`: where this conversation's context goes, as a small aligned table (plain text, so it
reads the same in a terminal and in a pipe)."""

from __future__ import annotations

from levelcode.agent.context_meter import ContextUsage, ContextWindow
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
    lines.append(_row("MCP (loaded)", usage.mcp_tools, total, indent=2, share=False))
    if usage.tool_search:
        lines.append(_row("tool_search + index", usage.tool_search, total, indent=4, share=False))
    for server, tokens in sorted(usage.mcp_by_server.items(), key=lambda item: -item[1]):
        lines.append(_row(server, tokens, total, indent=4, share=False))
    lines.append(_row("messages", usage.messages, total))
    lines.append(_row("total", total, total, share=False))
    if usage.window is not None:
        lines.append(window_line(total, usage.window))
    lines.extend(_deferred_lines(usage))
    if last is not None:
        lines.append(last_request_line(last))
    lines.append(
        "  MCP servers cost their tool schemas on every request; `levelcode mcp disable NAME` saves it."
    )
    return "\n".join(lines)


def window_line(total: int, window: ContextWindow) -> str:
    """How much of the model's window the context takes; a window LevelCode only assumes is
    called unknown, with the setting that makes it known."""
    model, share = visible(window.model), f"{100 * total / window.tokens:.1f}%"
    if window.known:
        return f"  window: {share} used — {total:,} of {model}'s {window.tokens:,} tokens"
    return (
        f"  window: unknown for {model} — {total:,} tokens would be {share} of the {window.tokens:,} "
        'LevelCode assumes; set "contextWindow" in your settings.json'
    )


def _deferred_lines(usage: ContextUsage) -> list[str]:
    if not usage.deferred_tools:
        return []
    lines = [
        f"  MCP deferred: {usage.deferred_tools:,} tools behind tool_search, not in the context "
        f"until a search loads them (~{usage.mcp_deferred:,} tokens saved per request)"
    ]
    for server, tokens in sorted(usage.deferred_by_server.items(), key=lambda item: -item[1]):
        lines.append(f"    {server:<24}{tokens:>10,}")
    return lines


def last_request_line(last: Usage) -> str:
    """The API's own counts for the last request: the prompt, how much came from the prompt cache."""
    return (
        f"  last request, as reported by the API: {last.prompt_tokens:,} input tokens — "
        f"{last.cache_read_input_tokens:,} read from the cache, "
        f"{last.cache_creation_input_tokens:,} written to it, {last.input_tokens:,} uncached"
    )
