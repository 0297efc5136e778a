"""Whether an MCP tool call may run without asking (gates G2/G3).

Pure. Load-bearing direction: this function may only ever say `ask` unless the *user's*
`mcpToolPolicy` says `allow` for the tool. There is no autopilot input: autopilot never relaxes MCP.
Server annotations are hints from an untrusted party and may only tighten. They are read as the
MCP spec defines them (`readOnlyHint` defaults to false, `destructiveHint` to true): a tool with
none of the four hint keys is unannotated and left to the allow-list; any other tool is
destructive — `ask` over any allow entry — unless `readOnlyHint` is true or `destructiveHint` is
explicitly false. An explicit `destructiveHint: true` wins over `readOnlyHint: true` (conflicting
hints resolve to the stricter one). `readOnlyHint` grants nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from levelcode.mcp.naming import SEPARATOR, split_tool_name

Decision = Literal["allow", "ask"]
ToolKind = Literal["unannotated", "read-only", "non-destructive", "destructive"]
USER_SETTINGS_HINT = "your user settings.json"
HINT_KEYS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True)
class McpVerdict:
    name: str
    decision: Decision
    allowlistable: bool  # whether any mcpToolPolicy entry could make this tool run without asking
    reason: str
    rule: str | None = None  # the mcpToolPolicy key that matched, if any
    destructive: bool = False
    kind: ToolKind = "unannotated"
    warning: str | None = None  # why a destructive tool always asks, for the card


def tool_kind(annotations: Mapping[str, object] | None) -> ToolKind:
    """What the annotations say, read the spec's way; only an exact true/false counts as one."""
    if annotations is None or not any(key in annotations for key in HINT_KEYS):
        return "unannotated"
    if annotations.get("destructiveHint") is True:
        return "destructive"
    if annotations.get("readOnlyHint") is True:
        return "read-only"
    return "non-destructive" if annotations.get("destructiveHint") is False else "destructive"


def destructive_reason(annotations: Mapping[str, object] | None) -> str:
    if annotations is not None and annotations.get("destructiveHint") is True:
        return "the server marks this tool destructive"
    return (
        "destructive by the MCP spec's defaults: the server's annotations do not mark it "
        "read-only (readOnlyHint) or non-destructive (destructiveHint: false)"
    )


def matching_rule(name: str, tool_policy: Mapping[str, str]) -> str | None:
    """The most specific policy key that applies: the exact name, then `server__*`, then `*`."""
    if name in tool_policy:
        return name
    parts = split_tool_name(name)
    if parts is not None and (wildcard := parts[0] + SEPARATOR + "*") in tool_policy:
        return wildcard
    return "*" if "*" in tool_policy else None


def classify_mcp_tool(
    name: str, annotations: Mapping[str, object] | None, tool_policy: Mapping[str, str]
) -> McpVerdict:
    kind = tool_kind(annotations)
    rule = matching_rule(name, tool_policy)
    allowed = rule is not None and tool_policy[rule] == "allow"
    if kind == "destructive":
        warning = destructive_reason(annotations)
        why = warning + "; it always asks"
        if allowed:
            why += f" (the allow entry {rule!r} does not apply to destructive tools)"
        return McpVerdict(name, "ask", False, why, rule, destructive=True, kind=kind, warning=warning)
    if allowed:
        return McpVerdict(name, "allow", True, f"allow-listed by mcpToolPolicy[{rule!r}]", rule, kind=kind)
    if rule is not None:
        why = f"mcpToolPolicy[{rule!r}] is {tool_policy[rule]!r}"
        return McpVerdict(name, "ask", True, why, rule, kind=kind)
    return McpVerdict(name, "ask", True, "not in mcpToolPolicy, so it asks (the default)", kind=kind)


def explain_mcp_refusal(
    verdict: McpVerdict, *, denied_by_user: bool = False, settings_file: str = USER_SETTINGS_HINT
) -> str:
    """The tool result the model gets when a call was not run: why, and that it must not retry."""
    if denied_by_user:
        head = f"ERROR: the user denied the call to MCP tool {verdict.name!r}; it was not run."
    else:
        head = (
            f"ERROR: MCP tool {verdict.name!r} was not run: it needs the user's approval "
            "and nobody can approve calls in this session (headless or no terminal)."
        )
    tail = " Do not retry this call; tell the user what you wanted to do instead."
    if verdict.destructive:
        why = (
            " By its annotations this tool is destructive (it is not marked read-only or"
            " non-destructive), so LevelCode asks before every call to it;"
            " it can only run in an interactive session where the user approves that call."
        )
        return head + why + tail
    if denied_by_user:
        return head + tail
    how = (
        f' To let it run without asking, the user can add "{verdict.name}": "allow" under'
        f' "mcpToolPolicy" in {settings_file}.'
    )
    return head + how + tail
