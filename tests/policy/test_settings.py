"""The sandbox's one setting. Load-bearing direction: only `"sandbox": {"network": true}` in the
user's own settings.json turns the network on, and only a list there names hosts for commands —
anything else (a string, a repository's file) leaves it off, and a malformed value or host is
reported, not guessed at."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.platform.settings_files import load_settings
from tests.support.cli import write_settings


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
