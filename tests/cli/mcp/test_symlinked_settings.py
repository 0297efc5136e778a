"""A settings.json kept elsewhere and linked in (dotfiles) stays linked when LevelCode writes it.
Load-bearing direction: after real `levelcode mcp add`/`disable`/`remove` runs, the link is still
the same link, the change is in the file it points at, and that file keeps its mode (0600 stays
0600, 0644 stays 0644); nothing is left beside either. Also through a chain of two links, and a
link whose file does not exist yet gets that file created where it points."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.support.cli import run_cli


def linked_settings(home: Path, dotfiles: Path, mode: int) -> tuple[Path, Path]:
    dotfiles.mkdir()
    target = dotfiles / "levelcode-settings.json"
    target.write_text(json.dumps({"model": "kept", "mcpServers": {}}, indent=2), encoding="utf-8")
    os.chmod(target, mode)
    link = home / "settings.json"
    link.symlink_to(target)
    return link, target


@pytest.mark.parametrize("mode", [0o600, 0o644])
def test_writes_go_through_the_link_and_keep_the_files_mode(
    isolated_home: Path, tmp_path: Path, mode: int
) -> None:
    link, target = linked_settings(isolated_home, tmp_path / "dotfiles", mode)
    added = run_cli(["mcp", "add", "echo", "--", "echo", "hi"], isolated_home)
    assert added.returncode == 0, added.stderr
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert doc["model"] == "kept"
    assert doc["mcpServers"]["echo"]["command"] == "echo"
    assert stat.S_IMODE(target.stat().st_mode) == mode
    disabled = run_cli(["mcp", "disable", "echo"], isolated_home)
    assert disabled.returncode == 0, disabled.stderr
    removed = run_cli(["mcp", "remove", "echo"], isolated_home)
    assert removed.returncode == 0, removed.stderr
    assert link.is_symlink()
    assert "echo" not in json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert sorted(p.name for p in target.parent.iterdir()) == ["levelcode-settings.json"]


def test_a_chain_of_links_is_followed_to_the_file(isolated_home: Path, tmp_path: Path) -> None:
    link, target = linked_settings(isolated_home, tmp_path / "dotfiles", 0o600)
    middle = tmp_path / "middle.json"
    middle.symlink_to(target)
    link.unlink()
    link.symlink_to(middle)
    assert run_cli(["mcp", "add", "echo", "--", "echo"], isolated_home).returncode == 0
    assert link.is_symlink()
    assert middle.is_symlink()
    assert "echo" in json.loads(target.read_text(encoding="utf-8"))["mcpServers"]


def test_a_link_to_a_file_not_yet_there_creates_it_there(isolated_home: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "levelcode-settings.json"
    link = isolated_home / "settings.json"
    link.symlink_to(target)
    assert run_cli(["mcp", "add", "echo", "--", "echo"], isolated_home).returncode == 0
    assert link.is_symlink()
    assert "echo" in json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
