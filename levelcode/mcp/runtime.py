"""Putting the MCP layer together for one workspace: config → launch gate → hub.

The edge where the pure core meets processes and files. Which servers may start is decided here,
once, for every surface (`mcp list`, `mcp call`, `run`, the REPL): a repository's servers never
start without the user's approval.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from levelcode import paths
from levelcode.mcp.config import McpConfig, ServerSpec
from levelcode.mcp.config_files import load_mcp_config
from levelcode.mcp.connection import ConnectOptions
from levelcode.mcp.hub import McpHub
from levelcode.mcp.protocol_memory import ProtocolMemory
from levelcode.mcp.trust import needs_launch_approval

NEEDS_APPROVAL = "needs approval"


def make_hub(workspace: Path) -> McpHub:
    options = ConnectOptions(workspace=workspace, log_dir=paths.logs_dir())
    memory = ProtocolMemory(paths.state_dir() / "protocols.json")
    return McpHub(options, memory=memory, results_dir=paths.results_dir())


def load_config(workspace: Path) -> McpConfig:
    return load_mcp_config(workspace)


async def start_permitted(hub: McpHub, specs: Iterable[ServerSpec]) -> None:
    """Start the servers that may start; record the others as not started, with the reason."""
    permitted: list[ServerSpec] = []
    for spec in specs:
        if needs_launch_approval(spec) and not spec.disabled:
            hub.mark_not_started(spec, NEEDS_APPROVAL)
        else:
            permitted.append(spec)
    await hub.start(permitted)
