"""Profiles and per-workspace choices (config/server_selection.py). Load-bearing direction: a server
outside the chosen profile, or turned off here, comes out disabled and says why — except one the
organisation requires; nothing here ever turns a server on."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ConfigError
from levelcode.mcp.config.managed_servers import govern
from levelcode.mcp.config.server_selection import chosen_profile, select_servers
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.policy.managed_policy import parse_managed_policy
from levelcode.policy.profiles import Profile, parse_profiles

FILE = "/home/me/.config/levelcode/settings.json"
USER = Provenance("user", FILE)


def spec(name: str, *, provenance: Provenance = USER, disabled: bool = False) -> StdioServerSpec:
    return StdioServerSpec(name=name, command="true", provenance=provenance, disabled=disabled)


def test_profiles_are_parsed_and_bad_ones_left_out() -> None:
    profiles, problems = parse_profiles(
        {
            "work": {"servers": ["github", "postgres", "github"]},
            "bad": {"servers": "github"},
            "odd": {"servers": [], "model": "x"},
        },
        file=FILE,
    )
    assert profiles == {"work": Profile("work", ("github", "postgres")), "odd": Profile("odd", ())}
    assert [f"{p.key}: {p.message}" for p in problems] == [
        'profiles.bad: expected {"servers": ["name", …]}; this profile is left out',
        "profiles.odd.model: unknown key, ignored",
    ]


def test_an_unknown_profile_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"no profile named 'home' in .*; profiles: docs, work"):
        chosen_profile({"work": Profile("work", ()), "docs": Profile("docs", ())}, "home", file=FILE)
    assert chosen_profile({}, None, file=FILE) is None


def test_only_the_profiles_servers_stay_on() -> None:
    config = McpConfig(
        servers=(spec("github"), spec("postgres"), spec("memory", disabled=True), spec("docs"))
    )
    chosen = select_servers(config, Profile("work", ("github", "memory", "jira")), (), file=FILE)
    states = {s.name: (s.disabled, s.disabled_by) for s in chosen.servers}
    assert states == {
        "github": (False, None),
        "postgres": (True, "not in profile 'work', which this session uses"),
        "memory": (True, None),  # its entry's "disabled" stays: a profile never turns a server on
        "docs": (True, "not in profile 'work', which this session uses"),
    }
    assert [f"{p.key}: {p.message}" for p in chosen.problems] == [
        "profiles.work: names 'jira', which is not configured here"
    ]


def test_a_server_turned_off_here_is_off_whatever_the_profile() -> None:
    config = McpConfig(
        servers=(spec("github"), spec("repo", provenance=Provenance("workspace", "/r/.mcp.json")))
    )
    chosen = select_servers(config, Profile("work", ("github", "repo")), {"github", "repo"}, file=FILE)
    assert [s.disabled_by for s in chosen.servers] == [
        "disabled in this workspace (enable with: levelcode mcp enable github --here)",
        "disabled in this workspace (enable with: levelcode mcp enable repo --here)",
    ]


def test_the_organisation_wins_over_profiles() -> None:
    """A required server stays on outside the profile and when turned off here; a blocked one in
    the profile stays blocked."""
    org = Provenance("organisation", "/etc/levelcode/managed-settings.json")
    policy = parse_managed_policy({"deniedMcpServers": [{"name": "evil"}]}, file=org.file)
    governed = govern([spec("docs", provenance=org), spec("evil")], policy)
    config = McpConfig(servers=governed)
    chosen = select_servers(config, Profile("work", ("evil",)), {"docs"}, file=FILE)
    docs, evil = chosen.servers
    assert not docs.disabled
    assert evil.organisation is not None
    assert evil.organisation.blocked is not None  # named by the profile, and blocked all the same
