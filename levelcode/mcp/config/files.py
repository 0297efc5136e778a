"""The thin edge that reads the MCP configuration files and hands the parsed documents to specs.py,
then puts the result under the organisation's policy (managed_servers.py), which came with the
settings.

Reads only; never writes (the `mcp` commands write through settings_store.py). A missing, empty or
`null` file means nothing is configured; a file that cannot be read or parsed is a listed problem.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from pathlib import Path

from levelcode.core.config_files import read_json_file
from levelcode.core.settings import Settings, load_settings
from levelcode.core.workspace_servers import servers_off
from levelcode.mcp.config.managed_servers import govern_config, required_tier
from levelcode.mcp.config.server_selection import PROFILES_KEY, chosen_profile, parse_profiles, select_servers
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


def load_mcp_config(
    workspace: Path,
    settings: Settings | None = None,
    *,
    user: TierConfig | None = None,
    profile: str | None = None,
    off_here: Collection[str] | None = None,
) -> McpConfig:
    """Both tiers for one workspace, merged under the organisation's policy: its required servers,
    then the user's, win name collisions; then only `profile`'s servers, less those turned off in
    this workspace (`off_here`; read here when None). The user's settings come read (`settings`,
    read once per session; read here when not given), so the file is read once and each of its
    problems reported once: they lead the config's problems. `user`: their servers, parsed already
    (by the early start), so they are parsed once too. Raises ConfigError for a profile the
    settings do not define."""
    settings = settings or load_settings(workspace)
    policy, file = settings.managed, str(settings.user_file)
    user = user if user is not None else user_tier(settings)
    workspace_tiers = load_workspace_tier(workspace)
    merged = merge_tiers(user, workspace_tiers, settings.problems, organisation=required_tier(policy))
    profiles, profile_problems = parse_profiles(settings.user.get(PROFILES_KEY), file=file)
    chosen = chosen_profile(profiles, profile, file=file)
    off = servers_off(workspace) if off_here is None else off_here
    governed = govern_config(merged, policy)
    selected = select_servers(governed, chosen, off, file=file)
    problems = (*selected.problems, *profile_problems)
    return dataclasses.replace(
        selected, problems=problems, settings=settings, managed=policy, profile=profile
    )


def user_tier(settings: Settings) -> TierConfig:
    """The user's own servers and tool policy, parsed from the settings read."""
    return parse_user_settings(settings.user, file=str(settings.user_file))
