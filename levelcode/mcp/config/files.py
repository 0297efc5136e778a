"""The thin edge that reads the MCP configuration files and hands the parsed documents to tiers.py,
then puts the result under the organisation's policy (managed_servers.py), which came with the
settings. The user's own servers are those of their settings and, first, those they keep for
this workspace alone (local_servers.py), in a file of theirs named by the workspace's identity.

Reads only; never writes (the `mcp` commands write through platform/settings_store.py). A missing, empty or
`null` file means nothing is configured; a file that cannot be read or parsed is a listed problem.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Collection
from pathlib import Path

from levelcode.mcp.config.environment import provider_keys_withheld, settings_key_values
from levelcode.mcp.config.launch_expansion import launch_expander
from levelcode.mcp.config.local_servers import own_servers, parse_local_servers
from levelcode.mcp.config.managed_servers import govern_config, required_tier
from levelcode.mcp.config.server_entry import ExpandSpec
from levelcode.mcp.config.server_selection import chosen_profile, select_servers
from levelcode.mcp.config.tiers import (
    McpConfig,
    TierConfig,
    merge_tiers,
    parse_user_tier,
    parse_workspace_file,
)
from levelcode.platform import paths
from levelcode.platform.config_files import read_json_file
from levelcode.platform.settings_files import load_settings
from levelcode.platform.workspace_identity import workspace_identity
from levelcode.platform.workspace_servers import servers_off
from levelcode.policy.settings import Settings

WORKSPACE_MCP_FILES = (Path(".levelcode") / "mcp.json", Path(".mcp.json"))
LOCAL_SERVERS_DIR = "local-servers"  # under the config dir, beside settings.json


def local_servers_path(workspace: Path, identity: str | None = None) -> Path:
    """The file of the user's servers for `workspace` alone: named by its identity (a readable
    stem, then a hash of the whole identity), so every worktree of a repository finds the same."""
    identity = identity or workspace_identity(workspace)
    kind, _, rest = identity.partition(":")
    folder = Path(rest.rpartition(":")[0]).parent if kind == "git" else Path(rest)
    stem = paths.file_stem(folder.name, fallback="workspace")
    digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return paths.config_dir() / LOCAL_SERVERS_DIR / f"{stem}-{digest}.json"


def local_tier(workspace: Path, expand: ExpandSpec | None = None) -> TierConfig:
    identity = workspace_identity(workspace)
    path = local_servers_path(workspace, identity)
    doc, problem = read_json_file(path)
    if problem:
        return TierConfig(problems=(problem,))
    return parse_local_servers(doc, file=str(path), identity=identity, expand=expand)


def load_workspace_tier(workspace: Path, expand: ExpandSpec | None = None) -> list[TierConfig]:
    """The repository's files' servers (`expand`: with their launch's `${VAR}` filled in)."""
    tiers: list[TierConfig] = []
    for relative in WORKSPACE_MCP_FILES:
        path = workspace / relative
        doc, problem = read_json_file(path)
        if problem:
            tiers.append(TierConfig(problems=(problem,)))
        else:
            tiers.append(parse_workspace_file(doc, file=str(path), expand=expand))
    return tiers


def load_mcp_config(
    workspace: Path,
    settings: Settings | None = None,
    *,
    profile: str | None = None,
    off_here: Collection[str] | None = None,
) -> McpConfig:
    """Both tiers for one workspace, merged under the organisation's policy: its required servers,
    then the user's, win name collisions; then only `profile`'s servers, less those turned off in
    this workspace (`off_here`; read here when None). The one selection of servers: a start makes
    it once, in its plan (mcp/launch/server_plan.py). The user's settings come read (`settings`,
    read once per session; read here when not given), so the file is read once and each of its
    problems reported once: they lead the config's problems. The profiles are parsed here, the
    one place, and kept with the configuration. Raises ConfigError for a profile the settings do
    not define."""
    settings = settings or load_settings(workspace)
    policy, file = settings.managed, str(settings.user_file)
    user = _own_tier(settings, workspace)
    withheld = provider_keys_withheld(os.environ, settings_key_values(settings))
    workspace_tiers = load_workspace_tier(workspace, launch_expander(os.environ, withheld))
    merged = merge_tiers(user, workspace_tiers, settings.problems, organisation=required_tier(policy))
    chosen = chosen_profile(settings.profiles, profile, file=file)  # its problems: among the settings'

    off = servers_off(workspace) if off_here is None else off_here
    governed = govern_config(merged, policy)
    selected = select_servers(governed, chosen, off, file=file)
    return dataclasses.replace(
        selected, settings=settings, managed=policy, profile=profile, profiles=settings.profiles
    )


def _own_tier(settings: Settings, workspace: Path) -> TierConfig:
    """The user's own servers in `workspace` (those for it alone first) and their tool policy,
    their launch's `${VAR}` filled in from the environment."""
    expand = launch_expander(os.environ)
    user = parse_user_tier(
        settings.mcp_servers, settings.mcp_tool_policy, file=str(settings.user_file), expand=expand
    )
    return own_servers(local_tier(workspace, expand), user)
