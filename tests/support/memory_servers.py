"""In-memory servers for hub, router and connection tests, reached through the hub's own seam.

`MemoryServers.plan` is a `TransportPlanner` (levelcode/mcp/live/transports.py): give it to a hub
(`McpHub(options, transports=servers.plan)`, or `hub.transports = servers.plan` for one a runtime
built) or to `connect(..., transports=servers.plan)`, and every server that hub starts is the
in-memory fault server of that name (tests/fakes/memory_server.py), found the way a stdio
server's era is found (one "process", `initialize` first). Everything above the transport —
the hub, the connection, the session, the router's gates — is the code that runs for real.
Process behaviour (exit, signals, stderr, sandbox) and compatibility with real servers stay on
real processes (tests/support/servers.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.server_box import SandboxChoice
from levelcode.mcp.live.early_start import EarlyServer
from levelcode.mcp.live.transports import TransportPlan, on_one_process
from tests.fakes.memory_server import MemoryServer, MemoryTaskServer, MemoryWire
from tests.support.servers import USER


class MemoryServers:
    """The in-memory servers of one test, by name."""

    def __init__(self) -> None:
        self.servers: dict[str, MemoryWire] = {}

    def add(self, *flags: str, name: str = "fault", **overrides: Any) -> StdioServerSpec:
        """The fault server in memory, started with the fault server's `flags`; its entry, as the
        user's own unless `overrides` say otherwise (as tests.support.servers.fault_spec)."""
        return self._entry(MemoryServer(*flags, name=name), overrides)

    def add_tasks(self, *flags: str, name: str = "tasks", **overrides: Any) -> StdioServerSpec:
        """The task server in memory, started with the task server's `flags` (no port); its entry."""
        return self._entry(MemoryTaskServer(*flags, name=name), overrides)

    def _entry(self, server: MemoryWire, overrides: dict[str, Any]) -> StdioServerSpec:
        self.servers[server.name] = server
        return StdioServerSpec(name=server.name, command="in-memory", provenance=USER, **overrides)

    def __getitem__(self, name: str) -> MemoryServer:
        """The fault server of that name (tests script it: resources, prompts, pushes)."""
        server = self.servers[name]
        assert isinstance(server, MemoryServer), f"{name!r} is not the fault server"
        return server

    def plan(
        self,
        spec: ServerSpec,
        options: ConnectOptions,
        parent_env: Mapping[str, str],
        begun: EarlyServer | None = None,
        sandbox: SandboxChoice | None = None,
    ) -> TransportPlan:
        server = self.servers.get(spec.name)
        if server is None:
            raise ServerStartError(f"no in-memory server named {spec.name!r}", server=spec.name)
        return TransportPlan(server.open_transport, on_one_process(options))
