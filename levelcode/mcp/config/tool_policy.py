"""`mcpToolPolicy` in the user's settings: which MCP tools are allowed without asking (G3), by
`server__tool`, `server__*` or `*`, or — for one tool — the object form "always" writes, tied to
the tool's definition.

Pure: takes the parsed value, returns the policy and the problems found; never reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.config.allow_rules import AllowRule, parse_allow_rule

PURE = True

POLICY_KEY = "mcpToolPolicy"
POLICY_VALUES = ("allow", "ask")


def parse_tool_policy(raw: object, *, file: str) -> tuple[dict[str, str | AllowRule], list[ConfigProblem]]:
    """`mcpToolPolicy`: `{"server__tool" | "server__*" | "*": "allow" | "ask"}`, or for one tool the
    object form "always" writes: `{"decision": "allow", "definition": {...hashes}}`."""
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [ConfigProblem(file, POLICY_KEY, 'expected an object such as {"server__tool": "allow"}')]
    policy: dict[str, str | AllowRule] = {}
    problems: list[ConfigProblem] = []
    for pattern, value in raw.items():
        where = f"{POLICY_KEY}.{pattern}"
        if (
            not isinstance(pattern, str)
            or not pattern
            or (pattern.endswith("*") and not is_wildcard(pattern))
        ):
            problems.append(ConfigProblem(file, where, 'expected "*", "server__*" or "server__tool"'))
        elif isinstance(value, Mapping):
            rule = parse_allow_rule(value)
            if isinstance(rule, str) or (rule.definition is not None and pattern.endswith("*")):
                why = (
                    rule if isinstance(rule, str) else "a definition is recorded for one tool, not a pattern"
                )
                problems.append(ConfigProblem(file, where, why + "; this entry allows nothing"))
            else:
                policy[pattern] = rule
        elif value not in POLICY_VALUES:
            problems.append(
                ConfigProblem(file, where, f"expected one of {', '.join(POLICY_VALUES)}; got {value!r}")
            )
        else:
            policy[pattern] = str(value)
    return policy, problems


def is_wildcard(pattern: str) -> bool:
    server = pattern[:-3]
    return pattern == "*" or (
        pattern.endswith("__*") and bool(server) and "*" not in server and "__" not in server
    )
