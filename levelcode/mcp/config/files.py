"""The thin edge that reads the MCP configuration files and hands the parsed documents to specs.py,
then puts the result under the organisation's policy (managed_servers.py), which came with the
settings.

Reads only; never writes (the `mcp` commands write through settings_store.py). A missing, empty or
`null` file means nothing is configured; a file that cannot be read or parsed is a listed problem.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from levelcode.core.config_files import read_json_file
from levelcode.core.settings import Settings, load_settings
from levelcode.mcp.config.managed_servers import govern_config, required_tier
from levelcode.mcp.config.specs import (
    McpConfig,
    TierConfig,
    merge_tiers,
    parse_user_settings,
    parse_workspace_file,
)

WORKSPACE_MCP_FILES = (Path(".levelcode") / "mcp.json", Path(".mcp.json"))


def load_workspace_tier(workspace: Path) -> list[TierConfig]:
    tiers: list[TierConfig] = []
    for relative in WORKSPACE_MCP_FILES:
        path = workspace / relative
        doc, problem = read_json_file(path)
        tiers.append(
            TierConfig(problems=(problem,)) if problem else parse_workspace_file(doc, file=str(path))
        )
    return tiers


def load_mcp_config(workspace: Path, settings: Settings | None = None) -> McpConfig:
    """Both tiers for one workspace, merged under the organisation's policy: its required servers,
    then the user's, win name collisions. The user's settings come parsed (`settings`, read once
    per session; read here when not given), so the file is read once and each of its problems
    reported once: they lead the config's problems."""
    settings = settings or load_settings(workspace)
    policy = settings.managed
    user = parse_user_settings(settings.user, file=str(settings.user_file))
    workspace_tiers = load_workspace_tier(workspace)
    merged = merge_tiers(user, workspace_tiers, settings.problems, organisation=required_tier(policy))
    governed = govern_config(merged, policy)
    return dataclasses.replace(governed, settings=settings, managed=policy)
