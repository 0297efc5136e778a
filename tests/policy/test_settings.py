"""The sandbox's one setting. Load-bearing direction: only `"sandbox": {"network": true}` in the
user's own settings.json turns the network on, and only a list there names hosts for commands —
anything else (a string, a repository's file) leaves it off, and a malformed value or host is
reported, not guessed at."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.platform.settings_files import load_settings
from levelcode.policy.managed_policy import ManagedPolicy
from levelcode.policy.prices import Price
from levelcode.policy.profiles import Profile
from levelcode.policy.settings_keys import DEFAULT_SHARE, ProviderPreferences
from tests.support.cli import write_settings
from tests.support.settings import USER_FILE, settings_of


@pytest.mark.parametrize(
    ("value", "network", "problem"),
    [
        ({"network": True}, True, None),
        ({"network": False}, False, None),
        ({}, False, None),
        ({"network": "yes"}, False, "sandbox.network"),
        (True, False, "sandbox"),
        ({"network": True, "write": ["/"]}, True, "sandbox.write"),
    ],
)
def test_the_network_setting(
    isolated_home: Path, tmp_path: Path, value: object, network: bool, problem: str | None
) -> None:
    write_settings(isolated_home, {"sandbox": value})
    settings = load_settings(tmp_path)
    assert settings.sandbox_network is network
    assert [p.key for p in settings.problems] == ([problem] if problem else [])


def test_a_repository_cannot_turn_the_network_on(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / ".levelcode").mkdir()
    (tmp_path / ".levelcode" / "settings.json").write_text('{"sandbox": {"network": true}}')
    settings = load_settings(tmp_path)
    assert settings.sandbox_network is False
    assert [p.key for p in settings.problems] == ["sandbox"]


def test_your_settings_may_list_hosts_for_commands(isolated_home: Path, tmp_path: Path) -> None:
    write_settings(
        isolated_home, {"sandbox": {"network": ["API.example.com", "r.local:4873", "https://x", 3]}}
    )
    settings = load_settings(tmp_path)
    assert settings.sandbox_network is False  # a list is not the whole network
    assert settings.sandbox_hosts == ("api.example.com", "r.local:4873")
    assert [p.key for p in settings.problems] == ["sandbox.network", "sandbox.network"]


def test_a_repository_cannot_list_hosts(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / ".levelcode").mkdir()
    (tmp_path / ".levelcode" / "settings.json").write_text('{"sandbox": {"network": ["evil.example"]}}')
    settings = load_settings(tmp_path)
    assert settings.sandbox_hosts == ()
    assert [p.key for p in settings.problems] == ["sandbox"]


# --- every key parsed once, at construction, into a typed field; its problems said there ----------


def test_each_key_is_parsed_into_its_typed_field() -> None:
    settings = settings_of(
        {
            "provider": "openai",
            "model": "gpt-5.5",
            "baseUrl": "https://proxy.example/v1",
            "apiKey": "sk-1",
            "maxRetries": 4,
            "contextWindow": 32_768,
            "prices": {"local": {"input": 1, "output": 2}},
            "toolSearch": "auto:25",
            "commandRules": {"allow": ["npm test", "npm run *"]},
            "profiles": {"work": {"servers": ["github"]}},
            "mcpRegistry": "https://r.example/",
            "allowedDirectories": ["/srv/data"],
            "mcpServers": {"s": {"command": "x"}},
        }
    )
    assert settings.problems == ()
    assert settings.provider == ProviderPreferences(
        "openai", "gpt-5.5", "https://proxy.example/v1", "sk-1", 4, 32_768
    )
    assert settings.prices == {"local": Price(1, 2, 1, 1)}
    assert settings.tool_search == ("auto", 0.25)
    assert settings.command_rules == ("npm test", "npm run *")
    assert settings.profiles == {"work": Profile("work", ("github",))}
    assert settings.registry == "https://r.example"
    assert settings.allowed_directories == (Path("/srv/data"),)
    assert settings.mcp_servers == {"s": {"command": "x"}}


@pytest.mark.parametrize(
    ("doc", "key"),
    [
        ({"provider": 3}, "provider"),
        ({"apiKey": ["k"]}, "apiKey"),
        ({"maxRetries": 11}, "maxRetries"),
        ({"maxRetries": True}, "maxRetries"),
        ({"contextWindow": 12}, "contextWindow"),
        ({"contextWindow": "32k"}, "contextWindow"),
        ({"toolSearch": "sometimes"}, "toolSearch"),
        ({"prices": {"m": {"input": -1, "output": 2}}}, "prices.m"),
        ({"commandRules": {"deny": []}}, "commandRules"),
        ({"commandRules": {"allow": "npm test"}}, "commandRules.allow"),
        ({"commandRules": {"allow": ["npm test", 3]}}, "commandRules.allow[1]"),
        ({"profiles": {"work": ["github"]}}, "profiles.work"),
        ({"mcpRegistry": "http://r.example"}, "mcpRegistry"),
    ],
)
def test_a_value_that_cannot_be_used_is_a_problem_and_counts_as_unset(
    doc: dict[str, object], key: str
) -> None:
    settings = settings_of(doc)
    assert [p.key for p in settings.problems] == [key]
    assert str(settings.problems[0]).startswith(f"{USER_FILE}: {key}: ")
    assert settings.provider == ProviderPreferences()
    assert settings.tool_search == ("auto", DEFAULT_SHARE)
    assert settings.registry is None
    assert settings.profiles == {}


def test_the_problems_are_said_once_and_the_policys_come_first() -> None:
    policy = ManagedPolicy(file="/etc/levelcode/managed-settings.json", autopilot=False)
    settings = settings_of({"autopilot": True, "toolSearch": "x", "contextWindow": 1}, policy)
    assert [p.key for p in settings.problems] == ["autopilot", "contextWindow", "toolSearch"]
    assert settings.autopilot is False
