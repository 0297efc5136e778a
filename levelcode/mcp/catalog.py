"""Tool specs from several MCP servers → the agent's tool list plus the routes back to each server.

Pure. Specs are third-party data (G4): descriptions are capped, schemas deep-copied and forced to
an object schema, a per-server tool cap applies, malformed specs are skipped and counted. Routes
are correlated by (server, tool), never by position, so a dropped or skipped spec can never shift
one tool's call onto another.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from levelcode.mcp.naming import assign_tool_names

DEFAULT_MAX_DESCRIPTION = 1024
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


@dataclass(frozen=True)
class ServerCount:
    exposed: int = 0
    dropped: int = 0  # valid tools left out by the per-server cap
    malformed: int = 0  # specs skipped because they are not a usable tool


@dataclass(frozen=True)
class Catalog:
    tools: tuple[AgentTool, ...] = ()
    routes: Mapping[str, McpRoute] = field(default_factory=dict[str, McpRoute])
    counts: Mapping[str, ServerCount] = field(default_factory=dict[str, ServerCount])

    def route(self, name: str) -> McpRoute | None:
        return self.routes.get(name)


@dataclass(frozen=True)
class _Spec:
    server: str
    tool: str
    description: object
    schema: object
    annotations: Mapping[str, object]


def build_catalog(
    listings: Sequence[tuple[str, Sequence[object]]],
    *,
    reserved: Collection[str] = (),
    max_tools_per_server: int = DEFAULT_MAX_TOOLS_PER_SERVER,
    max_description: int = DEFAULT_MAX_DESCRIPTION,
) -> Catalog:
    """`listings` is (server name, raw `tools/list` entries) per server, in display order."""
    kept: list[_Spec] = []
    counts: dict[str, ServerCount] = {}
    for server, specs in listings:
        valid, malformed = _valid_specs(server, specs)
        kept.extend(valid[:max_tools_per_server])
        counts[server] = ServerCount(
            exposed=min(len(valid), max_tools_per_server),
            dropped=max(0, len(valid) - max_tools_per_server),
            malformed=malformed,
        )
    names = assign_tool_names(((spec.server, spec.tool) for spec in kept), reserved)
    tools: list[AgentTool] = []
    routes: dict[str, McpRoute] = {}
    for spec in kept:
        name = names[(spec.server, spec.tool)]
        description = describe(spec.server, spec.tool, spec.description, max_description)
        tools.append(AgentTool(name, description, normalize_schema(spec.schema)))
        routes[name] = McpRoute(spec.server, spec.tool, spec.annotations)
    return Catalog(tuple(tools), routes, counts)


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
        valid.append(_Spec(server, name, raw.get("description"), raw.get("inputSchema"), frozen))
    return valid, malformed
