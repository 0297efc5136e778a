"""Server summaries built from plain data, for the overview and the words that describe it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from levelcode.mcp.calls.catalog import build_catalog
from levelcode.mcp.config.specs import Provenance, ServerSpec, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.status import ServerStatus
from levelcode.mcp.launch.trust import TrustState
from levelcode.mcp.live.overview import ServerSummary, summarize

USER = Provenance("user", "/home/me/.config/levelcode/settings.json")
REPO = Provenance("workspace", "/repo/.mcp.json")
RUNNING = ServerStatus("running")
WAITING = ServerStatus("waiting_approval")


def spec(name: str, *args: str, provenance: Provenance = USER, disabled: bool = False) -> StdioServerSpec:
    return StdioServerSpec(name=name, command="npx", args=args, provenance=provenance, disabled=disabled)


def tools(count: int, prefix: str = "t", annotations: Mapping[str, object] | None = None) -> list[object]:
    extra = {"annotations": dict(annotations)} if annotations is not None else {}
    return [{"name": f"{prefix}{i}", "inputSchema": {"type": "object"}, **extra} for i in range(count)]


def summaries(
    servers: Sequence[ServerSpec],
    listings: Sequence[tuple[str, Sequence[object]]],
    *,
    policy: Mapping[str, str] | None = None,
    statuses: Mapping[str, ServerStatus] | None = None,
    trust: Mapping[str, TrustState] | None = None,
    max_tools: int = 100,
) -> tuple[ServerSummary, ...]:
    config = McpConfig(servers=tuple(servers), tool_policy=dict(policy or {}))
    catalog = build_catalog(listings, max_tools_per_server=max_tools)
    return summarize(config, statuses or {}, trust or {}, catalog)
