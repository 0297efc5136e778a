"""Catalog. Load-bearing direction: every exposed name routes to exactly the (server, tool) it was
made from — never to a neighbour, even when a server over the cap or a malformed spec comes first —
and third-party text stays within its caps. The second corpus: well-formed specs come through whole."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.catalog import build_catalog, describe, normalize_schema
from levelcode.mcp.calls.definition_caps import DEFAULT_MAX_DEFINITION, DEFAULT_MAX_DESCRIPTION, compact_json

EMPTY_SCHEMA = {"type": "object", "properties": {}}


def _tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"does {name}", "inputSchema": {"type": "object"}, **extra}


def test_tools_from_several_servers_become_agent_tools_and_routes() -> None:
    catalog = build_catalog(
        [
            ("fs", [_tool("read_file", annotations={"readOnlyHint": True})]),
            ("gh", [_tool("create_issue"), _tool("read_file")]),
        ]
    )
    assert [t.name for t in catalog.tools] == ["fs__read_file", "gh__create_issue", "gh__read_file"]
    route = catalog.route("gh__read_file")
    assert route is not None
    assert (route.server, route.tool) == ("gh", "read_file")
    fs_route = catalog.route("fs__read_file")
    assert fs_route is not None
    assert fs_route.annotations == {"readOnlyHint": True}
    assert catalog.tools[0].description == "does read_file"


def test_over_cap_server_followed_by_another_server_routes_by_identity_not_position() -> None:
    big = [_tool(f"t{i}") for i in range(5)]
    catalog = build_catalog([("big", big), ("small", [_tool("only")])], max_tools_per_server=3)
    assert [t.name for t in catalog.tools] == ["big__t0", "big__t1", "big__t2", "small__only"]
    route = catalog.route("small__only")
    assert route is not None
    assert (route.server, route.tool) == ("small", "only")
    assert catalog.route("big__t3") is None
    assert catalog.counts["big"].exposed == 3
    assert catalog.counts["big"].dropped == 2
    assert catalog.counts["small"].exposed == 1
    for tool in catalog.tools:
        routed = catalog.routes[tool.name]
        assert tool.description == f"does {routed.tool}"


def test_malformed_specs_are_skipped_and_counted() -> None:
    specs: list[object] = [
        "not a dict",
        {"description": "no name"},
        {"name": ""},
        {"name": 7},
        _tool("ok"),
        _tool("ok"),  # a duplicate name from the same server
        _tool("second"),
    ]
    catalog = build_catalog([("s", specs), ("t", [_tool("x")])])
    assert [t.name for t in catalog.tools] == ["s__ok", "s__second", "t__x"]
    assert catalog.counts["s"].malformed == 5
    assert sum(c.exposed for c in catalog.counts.values()) == len(catalog.tools)


def test_schema_is_deep_copied_and_normalised() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string"}}}
    catalog = build_catalog([("s", [{"name": "a", "inputSchema": schema}])])
    exposed = catalog.tools[0].input_schema
    assert exposed == schema
    props = exposed["properties"]
    assert isinstance(props, dict)
    props["p"]["type"] = "changed"
    assert schema["properties"]["p"]["type"] == "string"


def test_non_object_schemas_become_the_empty_object_schema() -> None:
    for bad in [None, "x", 3, [], {"type": "string"}, {"type": ["object", "null"]}, {"properties": []}]:
        assert normalize_schema(bad) == EMPTY_SCHEMA
    assert normalize_schema({}) == EMPTY_SCHEMA
    assert normalize_schema({"properties": {"a": {}}}) == {"type": "object", "properties": {"a": {}}}


def test_descriptions_are_capped_including_the_fallback() -> None:
    catalog = build_catalog(
        [("s" * 300, [{"name": "t" * 300}, {"name": "long", "description": "d" * 5000}])], max_description=100
    )
    assert all(len(t.description) <= 100 for t in catalog.tools)
    assert catalog.tools[1].description.endswith("[description cut]")
    assert describe("srv", "tool", None, 1000) == "Tool 'tool' from MCP server 'srv'."
    assert describe("srv", "tool", "   ", 1000) == "Tool 'tool' from MCP server 'srv'."


def test_a_default_catalog_cuts_a_description_over_its_cap_and_keeps_real_ones_whole() -> None:
    real = "r" * 2_781  # sequential-thinking's description: arrives whole
    over = "o" * (DEFAULT_MAX_DESCRIPTION + 1)
    catalog = build_catalog([("s", [_tool("real", description=real), _tool("over", description=over)])])
    by_name = {t.name: t for t in catalog.tools}
    assert by_name["s__real"].description == real
    cut = by_name["s__over"].description
    assert len(cut) == DEFAULT_MAX_DESCRIPTION
    assert cut.endswith("[description cut]")
    assert catalog.counts["s"].cut_descriptions == ("over",)


def test_a_default_catalog_trims_or_leaves_out_a_definition_over_its_cap() -> None:
    described = {"type": "object", "properties": {"q": {"type": "string", "description": "d" * 300_000}}}
    listed = {"type": "object", "properties": {"q": {"enum": [f"v{i:06d}" for i in range(40_000)]}}}
    catalog = build_catalog(
        [("s", [_tool("ok"), _tool("described", inputSchema=described), _tool("listed", inputSchema=listed)])]
    )
    assert [t.name for t in catalog.tools] == ["s__ok", "s__described"]
    trimmed = catalog.tools[1]
    size = len(trimmed.name) + len(trimmed.description) + len(compact_json(trimmed.input_schema))
    assert size <= DEFAULT_MAX_DEFINITION
    assert catalog.route("s__listed") is None
    counts = catalog.counts["s"]
    assert (counts.exposed, counts.trimmed_schemas, counts.left_out) == (2, ("described",), ("listed",))
    (left_out,) = catalog.left_out
    assert (left_out.server, left_out.tool, left_out.limit) == ("s", "listed", DEFAULT_MAX_DEFINITION)
    assert left_out.chars > DEFAULT_MAX_DEFINITION


def test_names_avoid_reserved_builtins() -> None:
    catalog = build_catalog([("read", [_tool("file")])], reserved={"read__file"})
    assert catalog.tools[0].name != "read__file"
    assert catalog.route(catalog.tools[0].name) is not None


raw_specs = st.lists(
    st.one_of(
        st.builds(lambda n, d: {"name": n, "description": d}, st.text(max_size=12), st.text(max_size=50)),
        st.none(),
        st.integers(),
    ),
    max_size=12,
)


@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=10), raw_specs), max_size=5, unique_by=lambda x: x[0]),
    st.integers(min_value=0, max_value=6),
)
def test_property_counts_sum_and_every_route_points_home(
    listings: list[tuple[str, list[object]]], cap: int
) -> None:
    catalog = build_catalog(listings, max_tools_per_server=cap, max_description=40)
    assert sum(c.exposed for c in catalog.counts.values()) == len(catalog.tools) == len(catalog.routes)
    declared = {
        (server, spec["name"]) for server, specs in listings for spec in specs if isinstance(spec, dict)
    }
    for tool in catalog.tools:
        route = catalog.routes[tool.name]
        assert (route.server, route.tool) in declared
        assert len(tool.description) <= 40
    assert all(c.exposed <= cap for c in catalog.counts.values())
