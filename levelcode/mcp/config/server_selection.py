"""Which configured servers a session starts: all of them, or a named profile's (`"profiles"` in the
user's settings, `levelcode --profile NAME`, `/profile NAME`), less those the user turned off in
this workspace (platform/workspace_servers.py). A server left out is `disabled`, with the reason as
said (`disabled_by`), so every view and the launch gate treat it as any disabled server.

Pure: the merged configuration, the parsed profiles and the names turned off in; the
configuration out. The organisation's policy wins: a server it requires is never left out, and a
server it blocks stays blocked whatever a profile names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from levelcode.core.errors import ConfigError, ConfigProblem
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.policy.profiles import PROFILES_KEY, Profile

PURE = True


def chosen_profile(profiles: Mapping[str, Profile], name: str | None, *, file: str) -> Profile | None:
    """The profile `name` asks for (None: all servers). Raises ConfigError for one not defined."""
    if name is None:
        return None
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or f'none (add "{PROFILES_KEY}" to {file})'
        raise ConfigError(f"no profile named {name!r} in {file}; profiles: {known}", origin=file)
    return profiles[name]


def select_servers(
    config: McpConfig, profile: Profile | None, off_here: Collection[str], *, file: str
) -> McpConfig:
    """`config` with the servers outside `profile`, and those turned off here, disabled and said."""
    servers = tuple(_selected(spec, profile, off_here) for spec in config.servers)
    problems = list(config.problems)
    if profile is not None:
        known = {spec.name for spec in config.servers}
        problems += [
            ConfigProblem(
                file, f"{PROFILES_KEY}.{profile.name}", f"names {name!r}, which is not configured here"
            )
            for name in profile.servers
            if name not in known
        ]
    return dataclasses.replace(config, servers=servers, problems=tuple(problems))


def _selected(spec: ServerSpec, profile: Profile | None, off_here: Collection[str]) -> ServerSpec:
    if spec.organisation is not None and spec.organisation.required:
        return spec
    if spec.name in off_here:
        why = f"disabled in this workspace (enable with: levelcode mcp enable {spec.name} --here)"
        return dataclasses.replace(spec, disabled=True, disabled_by=why)
    if profile is not None and spec.name not in profile.servers:
        why = f"not in profile {profile.name!r}, which this session uses"
        return dataclasses.replace(spec, disabled=True, disabled_by=why)
    return spec
