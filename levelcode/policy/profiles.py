"""Named sets of servers (`"profiles"` in the user's own settings): each a name and the servers
it starts, parsed from the document once (policy/settings.py); which servers a session then starts
is mcp/config/server_selection.py's.

Pure: the value as written in, profiles and problems out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from levelcode.core.errors import ConfigProblem

PURE = True

PROFILES_KEY = "profiles"
SHAPE = 'expected an object such as {"work": {"servers": ["github", "postgres"]}}'


@dataclass(frozen=True)
class Profile:
    name: str
    servers: tuple[str, ...]


def parse_profiles(raw: object, *, file: str) -> tuple[dict[str, Profile], list[ConfigProblem]]:
    """`"profiles"`: each a named list of server names; a bad one is a problem and left out."""
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [ConfigProblem(file, PROFILES_KEY, SHAPE)]
    profiles: dict[str, Profile] = {}
    problems: list[ConfigProblem] = []
    for name, entry in raw.items():
        servers = entry.get("servers") if isinstance(entry, Mapping) else None
        if not isinstance(servers, list) or not all(isinstance(s, str) and s for s in servers):
            key = f"{PROFILES_KEY}.{name}"
            problems.append(
                ConfigProblem(file, key, 'expected {"servers": ["name", …]}; this profile is left out')
            )
            continue
        for key in sorted(str(k) for k in entry if k != "servers"):
            problems.append(ConfigProblem(file, f"{PROFILES_KEY}.{name}.{key}", "unknown key, ignored"))
        profiles[str(name)] = Profile(str(name), tuple(dict.fromkeys(servers)))
    return profiles, problems
