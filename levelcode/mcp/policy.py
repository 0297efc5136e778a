"""Whether an MCP tool call may run without asking (gates G2/G3).

Pure. Load-bearing direction: this function may only ever say `ask` unless the *user's*
`mcpToolPolicy` says `allow` for the tool. There is no autopilot input: autopilot never relaxes MCP.
Server annotations are hints from an untrusted party and may only tighten: `destructiveHint: true`
forces `ask` over any allow entry; `readOnlyHint` grants nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from levelcode.mcp.naming import SEPARATOR, split_tool_name

Decision = Literal["allow", "ask"]
USER_SETTINGS_HINT = "your user settings.json"


@dataclass(frozen=True)
class McpVerdict:
    name: str
    decision: Decision
    allowlistable: bool  # whether any mcpToolPolicy entry could make this tool run without asking
    reason: str
    rule: str | None = None  # the mcpToolPolicy key that matched, if any
    destructive: bool = False


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
    destructive = annotations is not None and annotations.get("destructiveHint") is True
    rule = matching_rule(name, tool_policy)
    allowed = rule is not None and tool_policy[rule] == "allow"
    if destructive:
        why = "the server marks this tool destructive, so it always asks"
        if allowed:
            why += f" (the allow entry {rule!r} does not apply to destructive tools)"
        return McpVerdict(name, "ask", False, why, rule, destructive=True)
    if allowed:
        return McpVerdict(name, "allow", True, f"allow-listed by mcpToolPolicy[{rule!r}]", rule)
    if rule is not None:
        return McpVerdict(name, "ask", True, f"mcpToolPolicy[{rule!r}] is {tool_policy[rule]!r}", rule)
    return McpVerdict(name, "ask", True, "not in mcpToolPolicy, so it asks (the default)")


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
            " The server marks this tool destructive, so LevelCode asks before every call to it;"
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
