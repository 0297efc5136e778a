"""Where `conformance/run.py --suite DIR` finds another release of the suite: in DIR's
node_modules (a folder where it was installed with npm) or in DIR itself (the package's folder).
Load-bearing direction: a folder without the suite is refused with a message, never run as if
the pinned suite were there."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import run


def _package(folder: Path) -> Path:
    (folder / "dist").mkdir(parents=True)
    (folder / "package.json").write_text('{"name": "@modelcontextprotocol/conformance"}\n')
    (folder / "dist" / "index.js").write_text("")
    return folder / "dist" / "index.js"


def test_an_install_folder_and_a_package_folder_are_both_found(tmp_path: Path) -> None:
    installed = _package(tmp_path / "install" / "node_modules" / "@modelcontextprotocol" / "conformance")
    assert run.suite_entry(tmp_path / "install") == installed
    assert run.suite_entry(
        tmp_path / "install" / "node_modules" / "@modelcontextprotocol" / "conformance"
    ) == (installed)


def test_a_folder_without_the_suite_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.js").write_text("")  # an entry point, but no package beside it
    with pytest.raises(SystemExit, match="no conformance suite in"):
        run.suite_entry(tmp_path)
