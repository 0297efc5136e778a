"""The loop's tests use the providers' fixtures: `api` (both APIs) and `connect`; the tests of
what a repository's files say (rules, commands) a `repo`: a workspace with a folder beside it,
where a link out of the repository can point."""

from pathlib import Path

import pytest

from tests.providers.conftest import api, connect

__all__ = ["api", "connect"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    return workspace
