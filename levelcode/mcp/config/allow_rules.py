"""What an allow rule covers: a tool's definition as the user saw it, kept as hashes (gate G2).

Pure. "Always allow" records SHA-256 hashes of the tool's description, input schema and
annotations as the server sent them (canonical JSON: sorted keys, no spaces); when the server
later changes any of them, the rule no longer matches that tool and the call asks again. Rules
are read from `mcpToolPolicy` (settings.json) and from the trust store; a malformed recorded rule
is a problem, never an allow.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

PURE = True

RuleDecision = Literal["allow", "ask"]
PART_KEYS = ("description", "inputSchema", "annotations")
PART_WORDS = {"description": "description", "inputSchema": "input schema", "annotations": "annotations"}


def canonical_hash(value: object) -> str:
    from hashlib import sha256  # here: this module is on the way to the first server spawn

    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class ToolDefinition:
    """Hashes of the three parts of a tool the user saw, as the server sent them."""

    description: str
    input_schema: str
    annotations: str

    def as_json(self) -> dict[str, str]:
        return dict(zip(PART_KEYS, (self.description, self.input_schema, self.annotations), strict=True))


def definition_of(description: object, input_schema: object, annotations: object) -> ToolDefinition:
    try:
        return ToolDefinition(
            canonical_hash(description), canonical_hash(input_schema), canonical_hash(annotations)
        )
    except (ValueError, RecursionError):  # unencodable or nested too deep: matches nothing recorded
        return ToolDefinition("", "", "")


def changed_parts(recorded: ToolDefinition, current: ToolDefinition | None) -> tuple[str, ...]:
    """The parts (as words) that differ; every part when the current definition is unknown."""
    if current is None:
        return tuple(PART_WORDS.values())
    pairs = zip(recorded.as_json().items(), current.as_json().values(), strict=True)
    return tuple(PART_WORDS[key] for (key, old), new in pairs if not old or old != new)


def describe_change(parts: tuple[str, ...], who: str = "you") -> str:
    """`its description and input schema changed since you allowed it`."""
    words = " and ".join(parts) if len(parts) <= 2 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"its {words} changed since {who} allowed it"


@dataclass(frozen=True)
class AllowRule:
    """An `mcpToolPolicy` entry in object form, or an "always" recorded for a repository's server."""

    decision: RuleDecision
    definition: ToolDefinition | None = None

    def as_json(self) -> dict[str, object]:
        doc: dict[str, object] = {"decision": self.decision}
        if self.definition is not None:
            doc["definition"] = self.definition.as_json()
        return doc


def parse_allow_rule(raw: object) -> AllowRule | str:
    """The rule, or what is wrong with it (a problem to report; the entry then allows nothing)."""
    if not isinstance(raw, Mapping):
        return 'expected "allow", "ask" or {"decision": ..., "definition": {...}}'
    decision = raw.get("decision")
    if decision not in ("allow", "ask"):
        return f'"decision" must be "allow" or "ask"; got {decision!r}'
    unknown = sorted(str(key) for key in raw if key not in ("decision", "definition"))
    if unknown:
        return f"unknown key {unknown[0]!r}"
    if "definition" not in raw:
        return AllowRule(decision)
    definition = raw["definition"]
    if not isinstance(definition, Mapping) or set(definition) != set(PART_KEYS):
        return f'"definition" must hold exactly {", ".join(PART_KEYS)} (SHA-256 hashes)'
    values = [definition[key] for key in PART_KEYS]
    if not all(isinstance(value, str) and len(value) == 64 for value in values):
        return '"definition" values must be SHA-256 hashes (64 hex characters)'
    return AllowRule(decision, ToolDefinition(*(str(value) for value in values)))
