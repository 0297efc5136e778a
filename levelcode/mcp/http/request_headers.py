"""The per-request HTTP headers of MCP 2026-07-28: `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*`
mirrored from tool arguments a tool's schema marks with `x-mcp-header`.

Pure. A tool whose `x-mcp-header` annotations break the rules (empty, not a header token,
duplicated ignoring case, on anything but a string, integer or boolean) cannot be called safely
over HTTP, so `header_params` says so and the transport leaves the tool out of the listing.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

PURE = True

MARK = "x-mcp-header"
_HEADER_TYPES = frozenset({"string", "integer", "boolean"})
_NAME_FIELDS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
# The tasks extension: requests about a task carry its id, so a balancer can route them to its holder.
_NAME_FIELDS |= {"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


def header_params(input_schema: object) -> dict[str, str] | None:
    """{argument name: header suffix} for a tool, or None when its annotations are invalid."""
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    mirrored: dict[str, str] = {}
    for name, prop in properties.items():
        if not isinstance(prop, Mapping) or MARK not in prop:
            continue
        header = prop[MARK]
        if not _valid_header_name(header) or prop.get("type") not in _HEADER_TYPES:
            return None
        mirrored[str(name)] = str(header)
    lowered = [h.lower() for h in mirrored.values()]
    return mirrored if len(set(lowered)) == len(lowered) else None


def _valid_header_name(value: object) -> bool:
    return isinstance(value, str) and bool(value) and all(0x21 <= ord(c) <= 0x7E and c != ":" for c in value)


def encode_value(value: object) -> str | None:
    """A header-safe spelling: plain when printable ASCII without edge spaces, else `=?base64?…?=`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        return None
    if value == value.strip() and all(0x20 <= ord(c) <= 0x7E for c in value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def standard_headers(message: Mapping[str, object]) -> dict[str, str]:
    """`Mcp-Method` for every request and notification, `Mcp-Name` where the method names a target."""
    method = message.get("method")
    if not isinstance(method, str):
        return {}
    headers = {"Mcp-Method": method}
    params = message.get("params")
    field = _NAME_FIELDS.get(method)
    if field and isinstance(params, Mapping):
        name = encode_value(params.get(field))
        if name is not None:
            headers["Mcp-Name"] = name
    return headers


def param_headers(mirrored: Mapping[str, str], arguments: object) -> dict[str, str]:
    """`Mcp-Param-<suffix>` for each mirrored argument present and not null."""
    if not isinstance(arguments, Mapping):
        return {}
    headers: dict[str, str] = {}
    for name, suffix in mirrored.items():
        encoded = encode_value(arguments.get(name))
        if encoded is not None:
            headers[f"Mcp-Param-{suffix}"] = encoded
    return headers


def callable_tools(
    result: Mapping[str, object],
) -> tuple[Mapping[str, object], dict[str, dict[str, str]], list[str]]:
    """A tools/list result without the tools whose marks are invalid; what each kept tool mirrors;
    the names left out."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result, {}, []
    kept: list[object] = []
    mirrored: dict[str, dict[str, str]] = {}
    left_out: list[str] = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, Mapping) else None
        params = header_params(tool.get("inputSchema")) if isinstance(tool, Mapping) else {}
        if params is None:
            left_out.append(str(name))
            continue
        if isinstance(name, str):
            mirrored[name] = params
        kept.append(tool)
    return {**result, "tools": kept}, mirrored, left_out
