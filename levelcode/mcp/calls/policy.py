"""Whether an MCP tool call may run without asking (gates G2/G3).

Pure. Load-bearing direction: this function may only ever say `ask` unless the *user* allowed the
tool: for the user's own servers an `mcpToolPolicy` entry, for a repository's server an "always"
the user gave it in this workspace (recorded with its approval; the settings file's entries never
apply to a repository's server). An allow rule that recorded the tool's definition covers only
that definition: when the server changes the tool, the rule stops applying and the call asks.
There is no autopilot input: autopilot never relaxes MCP.
Server annotations are hints from an untrusted party and may only tighten. They are read as the
MCP spec defines them (`readOnlyHint` defaults to false, `destructiveHint` to true): a tool with
none of the four hint keys is unannotated and left to the allow-list; any other tool is
destructive — `ask` over any allow entry — unless `readOnlyHint` is true or `destructiveHint` is
explicitly false. An explicit `destructiveHint: true` wins over `readOnlyHint: true` (conflicting
hints resolve to the stricter one). `readOnlyHint` grants nothing.
Above all of it, the organisation's `mcpToolPolicy` (policy/managed_policy.py): "deny" refuses the
tool outright, with no card; "ask" asks before every call, and no allow entry, no "always" and
no annotation makes it run unasked. Its patterns match the server's name and the server's own
tool name (`github__delete_*`, `*__drop_table`), so renaming a server does not escape them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from levelcode.core.outcome import ToolOutcome, failure
from levelcode.mcp.calls.naming import SEPARATOR, split_tool_name
from levelcode.mcp.config.allow_rules import AllowRule, ToolDefinition, changed_parts, describe_change
from levelcode.policy.managed_policy import ManagedPolicy

PURE = True

Decision = Literal["allow", "ask", "deny"]  # "deny": only the organisation's policy says it
ToolKind = Literal["unannotated", "read-only", "non-destructive", "destructive"]
PolicyEntry = str | AllowRule  # a hand-written "allow"/"ask", or the object form
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
    warning: str | None = None  # why a destructive tool always asks, or what changed, for the card
    changed: tuple[str, ...] = ()  # parts of an allowed tool's definition the server changed since
    repository: bool = False  # a repository's server: "always" is kept with its approval here
    organisation: str | None = None  # the organisation's rule that decided, as said

    @property
    def can_always(self) -> bool:
        """Whether "always allow" may be offered: never for a destructive tool, nor for one the
        organisation's policy asks about every time."""
        return not self.destructive and self.organisation is None


@dataclass(frozen=True)
class OrgToolRule:
    """The organisation's rule for one tool: "deny" or "ask", and the words naming the policy."""

    decision: Literal["deny", "ask"]
    said: str


def organisation_tool_rule(server: str, tool: str, policy: ManagedPolicy) -> OrgToolRule | None:
    """The organisation's rule for the server's tool (its own name): "deny" over "ask"."""
    found = [(p, d) for p, d in policy.tool_rules.items() if _rule_matches(p, server, tool)]
    if not found:
        return None
    pattern, decision = next(((p, d) for p, d in found if d == "deny"), found[0])
    what = "denied" if decision == "deny" else "asked before every call"
    said = policy.refusal(what, f'mcpToolPolicy["{pattern}"]')
    return OrgToolRule(decision, said)


def _rule_matches(pattern: str, server: str, tool: str) -> bool:
    if pattern == "*":
        return True
    server_pattern, _, tool_pattern = pattern.partition(SEPARATOR)
    return fnmatchcase(server, server_pattern) and fnmatchcase(tool, tool_pattern)


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


def matching_rule(name: str, tool_policy: Mapping[str, PolicyEntry]) -> str | None:
    """The most specific policy key that applies: the exact name, then `server__*`, then `*`."""
    if name in tool_policy:
        return name
    parts = split_tool_name(name)
    if parts is not None and (wildcard := parts[0] + SEPARATOR + "*") in tool_policy:
        return wildcard
    return "*" if "*" in tool_policy else None


def entry_decision(entry: PolicyEntry) -> str:
    return entry.decision if isinstance(entry, AllowRule) else entry


def policy_for_tool(
    name: str,
    tool: str,
    *,
    repository: bool,
    user_policy: Mapping[str, PolicyEntry],
    repository_rules: Mapping[str, AllowRule],
) -> Mapping[str, PolicyEntry]:
    """The rules that may apply to one tool: the user's settings for the user's own servers; for a
    repository's server only what the user allowed for it in this workspace (keyed by tool)."""
    if not repository:
        return user_policy
    rule = repository_rules.get(tool)
    return {name: rule} if rule is not None else {}


def classify_mcp_tool(
    name: str,
    annotations: Mapping[str, object] | None,
    tool_policy: Mapping[str, PolicyEntry],
    definition: ToolDefinition | None = None,
    *,
    repository: bool = False,
    organisation: OrgToolRule | None = None,
) -> McpVerdict:
    """`definition` is the tool as the server offers it now; a rule that recorded another one
    does not apply. `organisation`: the organisation's rule for the tool, which nothing loosens."""
    verdict = _user_verdict(name, annotations, tool_policy, definition, repository=repository)
    if organisation is None:
        return verdict
    if organisation.decision == "deny":
        return McpVerdict(
            name,
            "deny",
            False,
            organisation.said,
            kind=verdict.kind,
            repository=repository,
            organisation=organisation.said,
        )
    warning = organisation.said + (f"; {verdict.warning}" if verdict.warning else "")
    return dataclasses.replace(
        verdict,
        decision="ask",
        allowlistable=False,
        reason=organisation.said,
        warning=warning,
        organisation=organisation.said,
    )


def _user_verdict(
    name: str,
    annotations: Mapping[str, object] | None,
    tool_policy: Mapping[str, PolicyEntry],
    definition: ToolDefinition | None,
    *,
    repository: bool,
) -> McpVerdict:
    kind = tool_kind(annotations)
    rule = matching_rule(name, tool_policy)
    entry = tool_policy[rule] if rule is not None else None
    allowed = entry is not None and entry_decision(entry) == "allow"
    settable = not repository
    if kind == "destructive":
        warning = destructive_reason(annotations)
        why = warning + "; it always asks"
        if allowed:
            why += f" (the allow entry {rule!r} does not apply to destructive tools)"
        return McpVerdict(name, "ask", False, why, rule, True, kind, warning, repository=repository)
    recorded = entry.definition if isinstance(entry, AllowRule) else None
    changed = changed_parts(recorded, definition) if allowed and recorded is not None else ()
    if changed:
        warning = f"the server changed this tool: {describe_change(changed)}"
        why = f"allowed by {_where(rule, repository)} for the tool as it was; {describe_change(changed)}"
        return McpVerdict(name, "ask", settable, why, rule, False, kind, warning, changed, repository)
    if allowed:
        return McpVerdict(name, "allow", settable, f"allowed by {_where(rule, repository)}", rule, kind=kind)
    if rule is not None:
        why = f"{_where(rule, repository)} is {entry_decision(tool_policy[rule])!r}"
        return McpVerdict(name, "ask", settable, why, rule, kind=kind, repository=repository)
    why = (
        'a repository\'s server: it asks until you answer "always" in this workspace'
        if repository
        else "not in mcpToolPolicy, so it asks (the default)"
    )
    return McpVerdict(name, "ask", settable, why, kind=kind, repository=repository)


def _where(rule: str | None, repository: bool) -> str:
    return 'your "always" in this workspace' if repository else f"mcpToolPolicy[{rule!r}]"


def explain_mcp_refusal(
    verdict: McpVerdict, *, denied_by_user: bool = False, settings_file: str = USER_SETTINGS_HINT
) -> ToolOutcome:
    """The outcome the model gets when a call was not run: why, and that it must not retry."""
    return failure(_refusal_text(verdict, denied_by_user=denied_by_user, settings_file=settings_file))


def _refusal_text(verdict: McpVerdict, *, denied_by_user: bool, settings_file: str) -> str:
    tail = " Do not retry this call; tell the user what you wanted to do instead."
    if verdict.decision == "deny":
        return f"MCP tool {verdict.name!r} was not run: it is {verdict.organisation}." + tail
    if denied_by_user:
        head = f"the user denied the call to MCP tool {verdict.name!r}; it was not run."
    else:
        head = (
            f"MCP tool {verdict.name!r} was not run: it needs the user's approval "
            "and nobody can approve calls in this session (headless or no terminal)."
        )
    if verdict.organisation is not None and not denied_by_user:
        why = (
            f" It is {verdict.organisation}: LevelCode asks before every call to it, and nothing in the"
            " user's settings changes that; it can only run in an interactive session where the user"
            " approves that call."
        )
        return head + why + tail
    if verdict.destructive:
        why = (
            " By its annotations this tool is destructive (it is not marked read-only or"
            " non-destructive), so LevelCode asks before every call to it;"
            " it can only run in an interactive session where the user approves that call."
        )
        return head + why + tail
    if verdict.changed:
        why = (
            f" The user had allowed this tool, but the server changed it since:"
            f" {describe_change(verdict.changed, 'the user')}, so it asks again;"
            ' in an interactive session the user can approve it, and "always" records the new definition.'
        )
        return head + why + tail
    if denied_by_user:
        return head + tail
    if verdict.repository:
        how = (
            " It comes from a repository's server, which mcpToolPolicy in the user's settings does not"
            ' cover; in an interactive session the user can answer "always" to let it run here.'
        )
        return head + how + tail
    how = (
        f' To let it run without asking, the user can add "{verdict.name}": "allow" under'
        f' "mcpToolPolicy" in {settings_file}.'
    )
    return head + how + tail
