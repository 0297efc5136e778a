"""LEVELCODE_HOME holds every user-tier file when set; the fixture sets it for every test."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.platform import paths


def test_levelcode_home_holds_settings_state_trust_and_logs(isolated_home: Path) -> None:
    assert paths.user_settings_path() == isolated_home / "settings.json"
    for path in (paths.state_dir(), paths.trust_store_path(), paths.logs_dir(), paths.results_dir()):
        assert path.is_relative_to(isolated_home)


def test_without_levelcode_home_platform_dirs_are_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("LEVELCODE_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "st"))
    assert paths.user_settings_path() == tmp_path / "cfg" / "levelcode" / "settings.json"
    assert paths.trust_store_path() == tmp_path / "st" / "levelcode" / "trust.json"
