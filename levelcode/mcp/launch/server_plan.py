"""One start's servers, decided once (`plan_servers`): the tiers merged, the organisation's policy
applied, the profile and this workspace's choices made — by config loading, the one selection
(mcp/config/files.py) — and the launch of each server that starts unasked resolved. The early
start spawns from the plan (mcp/live/early_start.py), the runtime is built on it
(mcp/live/runtime.py), and `mcp list`, `mcp get` and `mcp call` take it: nothing selects again.

Reads the configuration files and resolves launches (a user's server's private folder is made
then); never spawns. A repository's server's launch is not resolved here: the launch gate
approves it first, and the hub resolves it (wrapped in the sandbox when the gate said so).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.connect_options import ConnectOptions, session_options
from levelcode.mcp.launch.resolve import server_launch
from levelcode.mcp.launch.server_box import server_box
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.policy.settings import Settings


@dataclass(frozen=True)
class PlannedLaunch:
    """A server's launch as resolved for this start, or why it could not be (the hub says so)."""

    spec: StdioServerSpec
    launch: StdioLaunch | None
    error: ServerStartError | None = None


@dataclass(frozen=True)
class ServerPlan:
    """What a start runs: `config`, the servers selected (a server left out is `disabled`, with
    why); `options`, what the launches were resolved with and the hub connects with; `launches`,
    each server that starts unasked resolved once, in the configuration's order."""

    config: McpConfig
    settings: Settings
    options: ConnectOptions
    launches: Mapping[str, PlannedLaunch] = field(default_factory=dict[str, PlannedLaunch])

    @property
    def workspace(self) -> Path:
        return self.options.workspace

    def only(self, spec: ServerSpec) -> ServerPlan:
        """This plan for one of its servers alone (`mcp get`, `mcp call`)."""
        config = dataclasses.replace(self.config, servers=(spec,))
        launches = {name: planned for name, planned in self.launches.items() if name == spec.name}
        return dataclasses.replace(self, config=config, launches=launches)

    def spawned_early(self) -> list[PlannedLaunch]:
        """The resolved launches the early start may spawn: those that need no sandbox around them."""
        return [p for p in self.launches.values() if p.launch is not None and server_box(p.spec) is None]


def plan_servers(
    workspace: Path,
    settings: Settings,
    *,
    profile: str | None = None,
    options: ConnectOptions | None = None,
) -> ServerPlan:
    """The plan of one start in `workspace` with `settings` (read once per session): only
    `profile`'s servers, less those turned off here. Raises ConfigError for a profile the
    settings do not define — before anything is resolved or spawned."""
    config = load_mcp_config(workspace, settings, profile=profile)
    options = options or session_options(workspace, settings)
    launches = {spec.name: _resolved(spec, options) for spec in config.servers if starts_unasked(spec)}
    return ServerPlan(config, settings, options, launches)


def starts_unasked(spec: ServerSpec) -> TypeGuard[StdioServerSpec]:
    """A stdio server of the user's (or their organisation's), on, and not blocked: no card is
    shown for it, so its launch is known now."""
    blocked = spec.organisation is not None and spec.organisation.blocked is not None
    wanted = spec.provenance.trusted and not spec.disabled and not blocked
    return isinstance(spec, StdioServerSpec) and wanted


def _resolved(spec: StdioServerSpec, options: ConnectOptions) -> PlannedLaunch:
    try:
        return PlannedLaunch(spec, server_launch(spec, options, os.environ))
    except ServerStartError as exc:
        return PlannedLaunch(spec, None, exc)
