"""Caps on a tool's whole definition. Load-bearing direction: no definition over the cap is ever
offered — its descriptive text (descriptions, titles, comments, examples) is cut until it fits,
or the tool is left out — and trimming never changes what the schema accepts: with descriptive
text removed from both, the offered schema equals the one received. The second corpus: real
servers' definitions (the largest measured, 5,743 characters) pass unchanged, and a property
*named* `description` or `title` is a property, never trimmed."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from levelcode.mcp.calls.definition_caps import (
    DEFAULT_MAX_DEFINITION,
    DEFAULT_MAX_DESCRIPTION,
    compact_json,
    definition_chars,
    fit_schema,
    trim_descriptive_text,
)


def strip(schema: object) -> object:
    return trim_descriptive_text(schema, 0)


def test_the_caps_fit_the_measured_real_servers() -> None:
    assert DEFAULT_MAX_DESCRIPTION >= 2_781  # sequential-thinking's description, the longest measured
    assert DEFAULT_MAX_DEFINITION >= 5_743  # notion's API-update-page-markdown, the largest measured
    assert DEFAULT_MAX_DEFINITION < 300_000 // 10


def test_a_definition_under_the_cap_is_unchanged() -> None:
    schema: dict[str, object] = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "d" * 4000}},
    }
    fitted = fit_schema("fs__read", "reads", schema, 5000)
    assert (fitted.schema, fitted.trimmed) == (schema, False)
    assert fitted.chars == definition_chars("fs__read", "reads", schema)


def test_a_huge_nested_description_is_cut_to_fit_and_nothing_else_changes() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "d" * 300_000, "enum": ["a", "b"]},
            "n": {"type": "integer", "description": "a number", "minimum": 1},
            "description": {"type": "string", "title": "t" * 50_000},
        },
        "required": ["q", "description"],
        "$defs": {"x": {"type": "array", "items": {"type": "string", "examples": ["e" * 9000]}}},
    }
    fitted = fit_schema("s__t", "desc", schema, 16_384)
    assert fitted.trimmed
    assert fitted.schema is not None
    assert len("s__t") + len("desc") + len(compact_json(fitted.schema)) <= 16_384
    assert strip(fitted.schema) == strip(schema)
    props = fitted.schema["properties"]
    assert isinstance(props, dict)
    assert props["n"]["description"] == "a number"  # short texts are kept whole
    assert "description" in props  # a property named `description` is a property
    assert props["q"]["description"].endswith("…")


def test_over_the_cap_without_any_descriptive_text_is_left_out() -> None:
    schema = {"type": "object", "properties": {"q": {"enum": [f"v{i}" for i in range(50_000)]}}}
    fitted = fit_schema("s__t", "desc", schema, 16_384)
    assert fitted.schema is None
    assert fitted.chars > 300_000


def test_a_schema_nested_too_deep_to_walk_is_left_out_not_a_crash() -> None:
    schema: dict[str, Any] = {"type": "object", "description": "x" * 100}
    inner = schema
    for _ in range(5_000):
        inner["not"] = {"description": "y"}
        inner = inner["not"]
    fitted = fit_schema("s__t", "", schema, 200)
    assert fitted.schema is None


json_leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=30)
schemas = st.recursive(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "object"])},
        optional={
            "description": st.text(max_size=400),
            "title": st.text(max_size=100),
            "enum": st.lists(st.text(max_size=8), max_size=5),
            "default": json_leaves,
            "examples": st.lists(json_leaves, max_size=3),
        },
    ),
    lambda children: st.fixed_dictionaries(
        {"type": st.just("object")},
        optional={
            "properties": st.dictionaries(
                st.sampled_from(["description", "title", "a", "b", "examples"]), children, max_size=4
            ),
            "anyOf": st.lists(children, max_size=3),
            "items": children,
            "description": st.text(max_size=400),
        },
    ),
    max_leaves=12,
)


@given(schemas, st.integers(min_value=50, max_value=3000))
@example({"type": "string", "enum": ["", "", "", "0", "0000"]}, 50)  # found by hypothesis: 51 > 50
def test_property_fitted_is_under_the_cap_and_accepts_the_same(schema: dict[str, Any], limit: int) -> None:
    fixed = len("s__t") + len("d")  # the name and the description count too
    fitted = fit_schema("s__t", "d", schema, limit)
    if fitted.schema is None:
        assert fixed + len(compact_json(strip(schema))) > limit
        return
    assert fixed + len(compact_json(fitted.schema)) <= limit
    assert strip(fitted.schema) == strip(schema)
