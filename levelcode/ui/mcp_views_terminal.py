"""The server list on a rich console (`mcp list` on a terminal, `/mcp`): marks, colours, tools in
columns, the same words as the plain text of ui/mcp_views.py, which a console that is no terminal
gets. Imported only where a rich console prints: rich is most of what a listing would import
otherwise, and `mcp list` into a pipe needs none of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.live.overview import ListView, ServerSummary, ToolLine
from levelcode.ui.mcp_views import (
    ADD_HINT,
    empty_list_lines,
    error_lines,
    facts_line,
    footer_lines,
    line_mark,
    line_parts,
    next_step,
    own_name,
    policy_lines,
    render_list,
    resource_lines,
    tools_line,
)
from levelcode.ui.mcp_words import sandbox_words, summary_state
from levelcode.ui.visible import visible


def _header(summary: ServerSummary) -> Text:
    mark, style = line_mark(summary)
    line = Text.assemble(
        (f"{mark} ", style), (visible(summary.name), "bold"), "  ", (visible(summary_state(summary)), style)
    )
    line.append(f"   {summary.tier} · {visible(summary.file)}", style="dim")
    return line


def _rich_line(summary: ServerSummary) -> Text:
    mark, style = line_mark(summary)
    state, rest, step = line_parts(summary)
    line = Text.assemble((visible(summary.name), "bold"), ": ", (visible(summary.launch), "cyan"), " - ")
    line.append(f"{mark} {visible(state)}", style=style)
    line.append(f" · {rest}", style="dim")
    if step is not None:
        line.append(f" — {visible(step)}", style="yellow")
    return line


def _rich_footer(view: ListView, said: Sequence[ConfigProblem]) -> list[Text]:
    return [
        Text(line, style="yellow" if line.startswith(("warning", "problem")) else "")
        for line in footer_lines(view, said)
    ]


def render_list_rich(
    view: ListView, *, said: Sequence[ConfigProblem] = (), verbose: bool = True
) -> RenderableType:
    parts: list[RenderableType] = []
    if not view.summaries:
        parts += [Text(line, style="dim" if line == ADD_HINT else "") for line in empty_list_lines(view)]
    if not verbose:
        parts += [_rich_line(summary) for summary in view.summaries]
        parts += _rich_footer(view, said)
        return Group(*parts)
    for summary in view.summaries:
        parts.append(_header(summary))
        parts.append(Text("  " + visible(summary.launch), style="cyan", overflow="fold"))
        if (sandbox := sandbox_words(summary)) is not None:
            style = "green" if summary.sandbox is not None else "dim"
            parts.append(Text(visible(f"  sandbox: {sandbox}"), style=style, overflow="fold"))
        parts.extend(
            Text(visible(f"  {line}"), style="magenta", overflow="fold") for line in policy_lines(summary)
        )
        if (facts := facts_line(summary)) is not None:
            parts.append(Text("  " + facts, style="dim"))
        parts.extend(Text("  " + line, style="yellow") for line in error_lines(summary))
        parts.extend(Text("  " + line, style="dim") for line in resource_lines(summary))
        if (step := next_step(summary)) is not None:
            parts.append(Text("  " + step, style="yellow"))
        if summary.tools:
            parts.append(Text("  " + tools_line(summary), style="dim"))
            cells = [
                Text.assemble(
                    _DECISION_MARKS[t.decision],
                    t.name,
                    _kind_mark(t.kind),
                    _own_mark(summary.name, t),
                )
                for t in summary.tools
            ]
            parts.append(Padding(Columns(cells, padding=(0, 3), expand=False), (0, 0, 0, 4)))
        parts.append(Text(""))
    parts += _rich_footer(view, said)
    return Group(*parts)


_KIND_STYLES = {"destructive": "red", "read-only": "green"}
_DECISION_MARKS = {"allow": ("✓ ", "green"), "ask": ("? ", "dim"), "deny": ("✗ ", "magenta")}


def _own_mark(server: str, tool: ToolLine) -> tuple[str, str]:
    own = own_name(server, tool)
    return ("", "") if own is None else (f" server's name: {own}", "cyan")


def _kind_mark(kind: str) -> tuple[str, str]:
    """What the tool's annotations say, after its name; destructive and read-only stand out."""
    return (f" ({kind})", _KIND_STYLES.get(kind, "dim"))


def print_list(
    console: Console, view: ListView, *, said: Sequence[ConfigProblem] = (), verbose: bool = True
) -> None:
    if console.is_terminal:
        console.print(render_list_rich(view, said=said, verbose=verbose))
    else:
        console.out(render_list(view, said=said, verbose=verbose), highlight=False)
