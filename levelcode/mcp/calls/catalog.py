"""Tool specs from several MCP servers → the agent's tool list plus the routes back to each server.

Pure. Specs are third-party data (G4): descriptions are capped, schemas deep-copied and forced to
an object schema, each whole definition capped (mcp/calls/definition_caps.py: descriptive text trimmed,
else the tool left out with a note), a per-server tool cap applies, malformed specs are skipped
and counted; every cap that bit is counted per server, by tool name. Routes
are correlated by (server, tool), never by position, so a dropped or skipped spec can never shift
one tool's call onto another.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from levelcode.mcp.calls.definition_caps import DEFAULT_MAX_DEFINITION, DEFAULT_MAX_DESCRIPTION, fit_schema
from levelcode.mcp.calls.naming import assign_tool_names
from levelcode.mcp.calls.resource_tools import RouteKind, resource_tool_specs
from levelcode.mcp.config.allow_rules import ToolDefinition, definition_of
from levelcode.mcp.launch.status import ToolLeftOut

PURE = True

DEFAULT_MAX_TOOLS_PER_SERVER = 100
_ELLIPSIS = " …[description cut]"


@dataclass(frozen=True)
class AgentTool:
    name: str
    description: str
    input_schema: dict[str, object]


@dataclass(frozen=True)
class McpRoute:
    server: str
    tool: str
    annotations: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    definition: ToolDefinition | None = None  # hashes of the tool as the server sent it
    kind: RouteKind = "tool"  # or one of the resource tools (mcp/calls/resource_tools.py)


@dataclass(frozen=True)
class ServerCount:
    exposed: int = 0
    dropped: int = 0  # valid tools left out by the per-server cap
    malformed: int = 0  # specs skipped because they are not a usable tool
    cut_descriptions: tuple[str, ...] = ()  # the server's tool names, where a cap bit
    trimmed_schemas: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # over the definition cap even without descriptive text


@dataclass(frozen=True)
class Catalog:
    tools: tuple[AgentTool, ...] = ()
    routes: Mapping[str, McpRoute] = field(default_factory=dict[str, McpRoute])
    counts: Mapping[str, ServerCount] = field(default_factory=dict[str, ServerCount])
    left_out: tuple[ToolLeftOut, ...] = ()  # each tool over the definition cap, to be told

    def route(self, name: str) -> McpRoute | None:
        return self.routes.get(name)


@dataclass(frozen=True)
class _Spec:
    server: str
    tool: str
    description: object
    schema: object
    annotations: Mapping[str, object]
    definition: ToolDefinition
    kind: RouteKind = "tool"


def build_catalog(
    listings: Sequence[tuple[str, Sequence[object]]],
    *,
    reserved: Collection[str] = (),
    max_tools_per_server: int = DEFAULT_MAX_TOOLS_PER_SERVER,
    max_description: int = DEFAULT_MAX_DESCRIPTION,
    max_definition: int = DEFAULT_MAX_DEFINITION,
    resource_servers: Collection[str] = (),
) -> Catalog:
    """`listings` is (server name, raw `tools/list` entries) per server, in display order;
    `resource_servers` get the resource tools too, after their own."""
    kept: list[_Spec] = []
    counts: dict[str, ServerCount] = {}
    for server, specs in listings:
        valid, malformed = _valid_specs(server, specs)
        kept.extend(valid[:max_tools_per_server])
        if server in resource_servers:
            kept.extend(_resource_specs(server, {spec.tool for spec in valid}))
        counts[server] = ServerCount(
            dropped=max(0, len(valid) - max_tools_per_server),
            malformed=malformed,
        )
    names = assign_tool_names(((spec.server, spec.tool) for spec in kept), reserved)
    tools: list[AgentTool] = []
    routes: dict[str, McpRoute] = {}
    left_out: list[ToolLeftOut] = []
    for spec in kept:
        name = names[(spec.server, spec.tool)]
        description = describe(spec.server, spec.tool, spec.description, max_description)
        fitted = fit_schema(name, description, normalize_schema(spec.schema), max_definition)
        counts[spec.server] = _counted(counts[spec.server], spec, description, fitted.schema, fitted.trimmed)
        if fitted.schema is None:
            left_out.append(ToolLeftOut(spec.server, spec.tool, fitted.chars, max_definition))
            continue
        tools.append(AgentTool(name, description, fitted.schema))
        routes[name] = McpRoute(spec.server, spec.tool, spec.annotations, spec.definition, spec.kind)
    return Catalog(tuple(tools), routes, counts, tuple(left_out))


def _counted(count: ServerCount, spec: _Spec, description: str, schema: object, trimmed: bool) -> ServerCount:
    """`count` with this tool added where it went: offered (perhaps cut or trimmed) or left out."""
    if schema is None:
        return replace(count, left_out=(*count.left_out, spec.tool))
    cut = description.endswith(_ELLIPSIS) and description != spec.description
    return replace(
        count,
        exposed=count.exposed + 1,
        cut_descriptions=(*count.cut_descriptions, spec.tool) if cut else count.cut_descriptions,
        trimmed_schemas=(*count.trimmed_schemas, spec.tool) if trimmed else count.trimmed_schemas,
    )


def describe(server: str, tool: str, text: object, limit: int) -> str:
    """The server's description, or a fallback; either way capped at `limit` characters."""
    if not isinstance(text, str) or not text.strip():
        text = f"Tool {tool!r} from MCP server {server!r}."
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(_ELLIPSIS))] + _ELLIPSIS


def normalize_schema(schema: object) -> dict[str, object]:
    """A deep copy that is always an object schema; anything else becomes the empty object schema."""
    empty: dict[str, object] = {"type": "object", "properties": {}}
    if not isinstance(schema, Mapping):
        return empty
    try:
        copied = json.loads(json.dumps(schema))
    except (TypeError, ValueError, RecursionError):
        return empty
    if not isinstance(copied, dict):
        return empty
    declared = copied.setdefault("type", "object")
    if declared != "object":
        return empty
    if not isinstance(copied.get("properties", {}), dict):
        return empty
    copied.setdefault("properties", {})
    return copied


def _valid_specs(server: str, specs: Sequence[object]) -> tuple[list[_Spec], int]:
    valid: list[_Spec] = []
    seen: set[str] = set()
    malformed = 0
    for raw in specs:
        name = raw.get("name") if isinstance(raw, Mapping) else None
        if not isinstance(raw, Mapping) or not isinstance(name, str) or not name or name in seen:
            malformed += 1
            continue
        seen.add(name)
        annotations = raw.get("annotations")
        frozen = MappingProxyType(dict(annotations) if isinstance(annotations, Mapping) else {})
        definition = definition_of(raw.get("description"), raw.get("inputSchema"), annotations)
        valid.append(_Spec(server, name, raw.get("description"), raw.get("inputSchema"), frozen, definition))
    return valid, malformed


def _resource_specs(server: str, taken: Collection[str]) -> list[_Spec]:
    """The resource tools whose names the server's own tools leave free."""
    specs = []
    for kind, raw in resource_tool_specs(server):
        name = str(raw["name"])
        if name in taken:
            continue
        annotations = MappingProxyType(dict(raw["annotations"]))  # type: ignore[call-overload]
        definition = definition_of(raw["description"], raw["inputSchema"], annotations)
        specs.append(
            _Spec(server, name, raw["description"], raw["inputSchema"], annotations, definition, kind)
        )
    return specs
