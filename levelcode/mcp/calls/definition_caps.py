"""Caps on what one MCP tool's definition may cost every model request (gate G4), and the trimming
that keeps a definition under them by dropping descriptive text only.

Pure. Never changes what a schema accepts: only `description`, `title`, `$comment` and `examples`
inside schema objects are cut or dropped; a definition still over the cap is left out whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import cast

PURE = True

# Measured with bench/tool_definition_sizes.py on 13 servers, 162 tools (the reference servers
# everything, filesystem, memory, sequential-thinking, time, fetch, git; context7,
# chrome-devtools-mcp, playwright, notion, github, markitdown): descriptions p50 60, p99 608
# characters, longest sequential-thinking's 2,781 and context7's 2,006 (the old cap, 1,024, cut
# both mid-instruction). 4,096 lets the longest real one arrive whole with room to grow (~1.5x).
DEFAULT_MAX_DESCRIPTION = 4_096
# Whole definitions (name + description + input schema as compact JSON), same servers: p50 568,
# p99 3,874, longest notion's API-update-page-markdown at 5,743. 16,384 (~4,100 tokens, every
# request) is ~2.9x the largest real one, and stops one schema property of 300,000 characters.
DEFAULT_MAX_DEFINITION = 16_384
_CUT_MARK = "…"

# Keys whose value is one subschema, a map of name → subschema, or a list of subschemas.
_ONE_SCHEMA = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
    }
)
_SCHEMA_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LIST = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
DESCRIPTIVE_TEXT = ("description", "title", "$comment")


def compact_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def definition_chars(name: str, description: str, schema: object) -> int:
    """What a definition costs: its name, its description and its input schema as compact JSON."""
    return len(name) + len(description) + len(compact_json(schema))


def nested_texts(schema: object) -> Iterator[str]:
    """Every descriptive string inside a schema (descriptions, titles, comments, examples as JSON)."""
    if not isinstance(schema, Mapping):
        return
    for key in DESCRIPTIVE_TEXT:
        if isinstance(text := schema.get(key), str):
            yield text
    if "examples" in schema:
        yield compact_json(schema["examples"])
    for sub in subschemas(schema):
        yield from nested_texts(sub)


def subschemas(schema: Mapping[str, object]) -> Iterator[object]:
    for key, value in schema.items():
        if key in _SCHEMA_MAP and isinstance(value, Mapping):
            yield from value.values()
        elif key in _SCHEMA_LIST and isinstance(value, list):
            yield from value
        elif key in _ONE_SCHEMA and isinstance(value, Mapping):
            yield value


@dataclass(frozen=True)
class FittedSchema:
    schema: dict[str, object] | None  # None: still over the cap without any descriptive text
    trimmed: bool = False
    chars: int = 0  # the definition's size as received, for the note when it is left out


def fit_schema(name: str, description: str, schema: dict[str, object], limit: int) -> FittedSchema:
    """The schema as is when the whole definition fits `limit`; else with its descriptive text cut
    just enough (the longest texts first, all to one length) to fit; else None."""
    fixed = len(name) + len(description)
    try:
        size = fixed + len(compact_json(schema))
    except RecursionError:  # nested too deep to measure: not offered
        return FittedSchema(None, chars=fixed)
    if size <= limit:
        return FittedSchema(schema, chars=size)
    try:
        longest = max((len(text) for text in nested_texts(schema)), default=0)
        bare = trim_descriptive_text(schema, 0)
        if fixed + len(compact_json(bare)) > limit:
            return FittedSchema(None, chars=size)
        low, high = 0, longest  # the longest per-text length that still fits: low fits, high not
        while high - low > 1:
            middle = (low + high) // 2
            if fixed + len(compact_json(trim_descriptive_text(schema, middle))) <= limit:
                low = middle
            else:
                high = middle
    except RecursionError:  # nested too deep to walk: not offered
        return FittedSchema(None, chars=size)
    fitted = cast(dict[str, object], trim_descriptive_text(schema, low))
    return FittedSchema(fitted, trimmed=True, chars=size)


def trim_descriptive_text(schema: object, limit: int) -> object:
    """A copy with every descriptive text longer than `limit` cut to it (marked), examples over it
    dropped; with `limit` 0 all of them dropped. Everything else is kept exactly."""
    if not isinstance(schema, Mapping):
        return schema
    kept: dict[str, object] = {}
    for key, value in schema.items():
        if key in DESCRIPTIVE_TEXT and isinstance(value, str):
            if limit > 0:
                kept[key] = value if len(value) <= limit else value[:limit] + _CUT_MARK
        elif key == "examples":
            if limit > 0 and len(compact_json(value)) <= limit:
                kept[key] = value
        elif key in _SCHEMA_MAP and isinstance(value, Mapping):
            kept[key] = {name: trim_descriptive_text(sub, limit) for name, sub in value.items()}
        elif key in _SCHEMA_LIST and isinstance(value, list):
            kept[key] = [trim_descriptive_text(sub, limit) for sub in value]
        elif key in _ONE_SCHEMA and isinstance(value, Mapping):
            kept[key] = trim_descriptive_text(value, limit)
        else:
            kept[key] = value
    return kept
