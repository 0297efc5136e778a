"""Views of the MCP server summary (mcp/live/overview.py) for `mcp list` and `/mcp`: plain text when
piped, JSON for scripts, and the parts of the rich view a terminal gets (ui/mcp_views_terminal.py,
which alone imports rich). All three show the same facts from the same summary: `mcp list` one
line per server (as Claude Code's `name: command - ✓ Connected`), `-v` and `/mcp` every fact and
tool."""

from __future__ import annotations

import shlex
import time
from collections.abc import Sequence

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.calls.naming import SEPARATOR
from levelcode.mcp.config.specs import OrgRule, Tier
from levelcode.mcp.launch.server_box import ServerBox
from levelcode.mcp.launch.trust import TrustState
from levelcode.mcp.live.overview import ListView, ServerSummary, ToolLine
from levelcode.platform import paths
from levelcode.ui.mcp_words import confinement_words, login_hint, sandbox_words, summary_state
from levelcode.ui.visible import visible

ADD_HINT = "Add one with: levelcode mcp add NAME -- COMMAND [ARGS...]  (or: levelcode mcp import)"


def next_step(summary: ServerSummary) -> str | None:
    phase = summary.status.phase
    if phase == "waiting_approval":
        return f"approve with: levelcode mcp trust {summary.name}"
    if phase == "disabled" and summary.status.detail:
        return None  # a profile or this workspace turned it off: its state says how to undo that
    if phase == "disabled":
        return f"enable with: levelcode mcp enable {summary.name}"
    if phase == "needs_login":
        return login_hint(summary.name)
    if phase == "failed" and not summary.remote:
        return f"its stderr: {paths.server_log_path(summary.name)}"
    return None


def own_name(server: str, tool: ToolLine) -> str | None:
    """The server's own name for a tool the model sees under another name than `server__tool`
    (renamed: sanitized, shortened, kept clear of a built-in), quoted as a shell reads it, so that
    `mcp call` can be given either; None when the model's name says it already."""
    if tool.name == f"{server}{SEPARATOR}{tool.tool}":
        return None
    return visible(shlex.quote(tool.tool))


def tool_entry(server: str, tool: ToolLine) -> str:
    """`    fs__read  [allow · read-only]`, and the server's own name where it differs."""
    line = f"    {tool.name}  [{tool.decision} · {tool.kind}]"
    own = own_name(server, tool)
    return line if own is None else f"{line}  server's name: {own}"


def policy_lines(summary: ServerSummary) -> list[str]:
    """What the organisation's policy decided for a server beyond blocking it (its state says that):
    `policy: the sandbox is required by your organisation's policy (FILE)`."""
    rule = summary.organisation
    if rule is None or rule.blocked is not None:
        return []
    return [f"policy: {text}" for text in (rule.sandbox, rule.sampling_off) if text]


def organisation_json(rule: OrgRule | None) -> dict[str, object] | None:
    """What the organisation's policy decided for a server, each as said (`mcp list --json`,
    `mcp get --json`); None: nothing."""
    if rule is None:
        return None
    return {
        "required": rule.required,
        "blocked": rule.blocked,
        "sandbox": rule.sandbox,
        "sampling": rule.sampling_off,
    }


def tools_line(summary: ServerSummary) -> str:
    allowed = sum(1 for tool in summary.tools if tool.decision == "allow")
    count = len(summary.tools)
    parts = [
        f"{count} tool{'' if count == 1 else 's'}",
        f"~{summary.schema_tokens:,} tokens per turn",
        f"{allowed} allow-listed",
    ]
    if summary.dropped:
        parts.append(f"{summary.dropped} over the cap left out")
    return " · ".join(parts + cap_parts(summary))


def cap_parts(summary: ServerSummary) -> list[str]:
    """Where a cap on third-party text bit, naming the server's tools (escaped for a terminal)."""
    parts = []
    for names, one, many in (
        (summary.cut_descriptions, "description cut", "descriptions cut"),
        (summary.trimmed_schemas, "schema trimmed", "schemas trimmed"),
        (summary.left_out, "left out over the definition cap", "left out over the definition cap"),
    ):
        if names:
            parts.append(visible(f"{len(names)} {one if len(names) == 1 else many} ({', '.join(names)})"))
    return parts


def facts_line(summary: ServerSummary) -> str | None:
    """`MCP 2025-11-25 · everything 2.0.0 · offers tools, resources, prompts` (server text escaped)."""
    facts = summary.facts
    if facts is None:
        return None
    parts = [f"MCP {facts.protocol}"]
    if facts.name:
        parts.append(visible(" ".join(filter(None, (facts.name, facts.version)))))
    parts.append("offers " + (", ".join(facts.offers) or "nothing it declares"))
    return " · ".join(parts)


def error_lines(summary: ServerSummary) -> list[str]:
    """The server's error-level log messages not shown before (each is shown once)."""
    if summary.facts is None:
        return []
    return [f"server said {visible(line)}" for line in summary.facts.log_errors]


def resource_lines(summary: ServerSummary) -> list[str]:
    """The resources in use that the server watches, and the latest it said changed."""
    facts = summary.facts
    if facts is None or not (facts.watched_resources or facts.resource_updates):
        return []
    lines = [f"watching {facts.watched_resources} resource(s) in use for changes"]
    for uri, at in facts.resource_updates:
        lines.append(f"changed {time.strftime('%H:%M:%S', time.localtime(at))}: {visible(uri)[:200]}")
    return lines


def facts_json(summary: ServerSummary) -> dict[str, object]:
    facts = summary.facts
    if facts is None:
        return {"protocol": None, "serverInfo": None, "offers": [], "log_errors": []}
    return {
        "protocol": facts.protocol,
        "serverInfo": {"name": facts.name, "version": facts.version},
        "offers": list(facts.offers),
        "log_errors": list(facts.log_errors),
        "resources": {
            "watched": facts.watched_resources,
            "updated": [{"uri": uri, "at": at} for uri, at in facts.resource_updates],
        },
    }


def caps_json(summary: ServerSummary) -> dict[str, list[str]]:
    return {
        "cut_descriptions": list(summary.cut_descriptions),
        "trimmed_schemas": list(summary.trimmed_schemas),
        "left_out": list(summary.left_out),
    }


def empty_list_lines(view: ListView) -> list[str]:
    """With no server to show: how to add one, unless a file that could not be read may hold some."""
    unread = list(dict.fromkeys(problem.file for problem in view.problems if problem.whole_file))
    if unread:
        return [visible(f"No MCP servers listed: {' and '.join(unread)} could not be read.")]
    return ["No MCP servers are configured.", ADD_HINT]


# What `-s` calls each tier's file (the repository's files are Claude Code's project scope).
SCOPE_OF_TIER: dict[Tier, str] = {
    "user": "user",
    "local": "local",
    "workspace": "project",
    "organisation": "organisation",
}


def line_mark(summary: ServerSummary) -> tuple[str, str]:
    """The mark before a server's state, and its colour: ● running, ✗ failed, ◌ waiting, …"""
    phase = summary.status.phase
    mark, style = _MARKS.get(phase, ("✗" if phase == "failed" else "◌", "yellow"))
    return mark, "red" if phase == "failed" and not summary.remote else style


def line_parts(summary: ServerSummary) -> tuple[str, str, str | None]:
    """One server's line after its launch: state, then tools and scope, then the next step."""
    count = len(summary.tools)
    tools = [f"{count} tool{'' if count == 1 else 's'}"] if count else []
    rest = " · ".join([*tools, SCOPE_OF_TIER[summary.tier]])
    return summary_state(summary), rest, next_step(summary)


def server_line(summary: ServerSummary) -> str:
    """`fs: npx -y pkg ~ - ● running · 14 tools · user`, and what to do next, on one line."""
    state, rest, step = line_parts(summary)
    line = f"{summary.name}: {summary.launch} - {line_mark(summary)[0]} {state} · {rest}"
    return visible(line + (f" — {step}" if step else ""))


def render_list(view: ListView, *, said: Sequence[ConfigProblem] = (), verbose: bool = True) -> str:
    """Plain text, for pipes and logs; `said`: problems the command has said already (not repeated);
    `verbose`: every fact and tool of each server, else one line each."""
    lines: list[str] = []
    if not view.summaries:
        lines += empty_list_lines(view)
    if not verbose:
        return "\n".join([*lines, *map(server_line, view.summaries), *footer_lines(view, said)])
    for summary in view.summaries:
        lines.append(visible(f"{summary.name} · {summary_state(summary)} · {summary.tier} · {summary.file}"))
        lines.append(f"  {visible(summary.launch)}")
        if (sandbox := sandbox_words(summary)) is not None:
            lines.append(visible(f"  sandbox: {sandbox}"))
        lines.extend(visible(f"  {line}") for line in policy_lines(summary))
        if (facts := facts_line(summary)) is not None:
            lines.append(f"  {facts}")
        lines.extend(f"  {line}" for line in error_lines(summary))
        lines.extend(f"  {line}" for line in resource_lines(summary))
        if (step := next_step(summary)) is not None:
            lines.append(f"  {step}")
        if summary.tools:
            lines.append(f"  {tools_line(summary)}:")
            lines.extend(tool_entry(summary.name, tool) for tool in summary.tools)
    lines.extend(footer_lines(view, said))
    return "\n".join(lines)


def footer_lines(view: ListView, said: Sequence[ConfigProblem]) -> list[str]:
    lines: list[str] = []
    if view.stale:
        lines.append("Approved servers this workspace no longer configures")
        lines.append("(forget with: levelcode mcp revoke NAME):")
        lines.extend(f"  {name}: {visible(launch)}" for name, launch in view.stale)
    if view.warning:
        lines.append(f"warning: {visible(view.warning)}")
    lines.extend(f"problem: {visible(str(problem))}" for problem in view.problems if problem not in said)
    lines.extend(visible(note) for note in view.notes)
    return lines


_MARKS = {"running": ("●", "green"), "disabled": ("○", "dim"), "blocked": ("⊘", "magenta")}


def sandbox_json(summary: ServerSummary) -> dict[str, object] | None:
    """`confined`: true, false, or null while a repository's server awaits the user's choice;
    null as a whole for a remote server."""
    if summary.remote:
        return None
    return confinement_json(summary.sandbox, summary.tier, summary.trust)


def confinement_json(box: ServerBox | None, tier: Tier, trust: TrustState | None) -> dict[str, object]:
    decided = tier != "workspace" or trust == "approved"
    confined: bool | None = box is not None if decided or box is not None else None
    shape: dict[str, object] = {"confined": confined, "text": confinement_words(box, tier, trust)}
    if box is not None:
        shape.update(write=list(box.write), workspace=box.workspace, network=box.network, by=box.by)
        shape.update(hosts=list(box.hosts), registry=box.registry)
    return shape


def summaries_json(view: ListView) -> dict[str, object]:
    servers = [
        {
            "name": s.name,
            "state": summary_state(s),
            "phase": s.status.phase,
            "tier": s.tier,
            "file": s.file,
            "launch": s.launch,
            "trust": s.trust,
            "change": s.change,
            "schema_tokens": s.schema_tokens,
            "tools": [
                {"name": t.name, "tool": t.tool, "decision": t.decision, "reason": t.reason, "kind": t.kind}
                for t in s.tools
            ],
            "dropped": s.dropped,
            "caps": caps_json(s),
            "sandbox": sandbox_json(s),
            "organisation": organisation_json(s.organisation),
            **facts_json(s),
        }
        for s in view.summaries
    ]
    return {
        "servers": servers,
        "stale_approvals": [{"name": name, "launch": launch} for name, launch in view.stale],
        "problems": [str(p) for p in view.problems],
        "warning": view.warning,
    }
