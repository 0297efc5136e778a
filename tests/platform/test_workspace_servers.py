"""Per-workspace server choices, keyed on the repository (platform/workspace_identity.py) with real git:
every worktree of one clone shares them (`git worktree add`), another repository does not, and a
`.git` file planted to borrow another repository's identity is not believed. Load-bearing
direction: a choice made in one repository never shows in another."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.platform.workspace_identity import describe_identity, workspace_identity
from levelcode.platform.workspace_servers import servers_off, turn_off
from tests.support.git_layouts import run_git


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q")
    (repo / "README").write_text("hi\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "x").write_text("x\n")
    run_git(repo, "add", ".")
    run_git(repo, "commit", "-q", "-m", "first")
    return repo


def test_every_worktree_of_a_repository_is_one_workspace(repository: Path, tmp_path: Path) -> None:
    run_git(repository, "worktree", "add", "-q", str(tmp_path / "feature"))
    main, linked = workspace_identity(repository), workspace_identity(tmp_path / "feature")
    assert main == linked == f"git:{(repository / '.git').resolve()}:."
    assert workspace_identity(repository / "sub") == workspace_identity(tmp_path / "feature" / "sub")
    assert workspace_identity(repository / "sub") != main
    assert (
        describe_identity(main)
        == f"every worktree of the repository whose git folder is {repository.resolve()}/.git"
    )


def test_another_repository_and_a_plain_folder_are_others(repository: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    run_git(other, "init", "-q")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert workspace_identity(other) != workspace_identity(repository)
    assert workspace_identity(plain) == f"path:{plain.resolve()}"


def test_a_planted_git_file_borrows_no_identity(repository: Path, tmp_path: Path) -> None:
    """A repository that ships `.git` pointing into yours (or at one of your worktrees' folders)
    is not your repository: the back-link git writes is missing."""
    run_git(repository, "worktree", "add", "-q", str(tmp_path / "feature"))
    worktree_dir = next((repository / ".git" / "worktrees").iterdir())
    for pointed in (repository / ".git", worktree_dir):
        attacker = tmp_path / f"attacker-{pointed.name}"
        attacker.mkdir()
        (attacker / ".git").write_text(f"gitdir: {pointed}\n")
        assert workspace_identity(attacker) == f"path:{attacker.resolve()}"


def test_a_server_turned_off_stays_off_in_every_worktree_and_only_there(
    repository: Path, tmp_path: Path
) -> None:
    store = tmp_path / "state" / "workspace-servers.json"
    other = tmp_path / "other"
    other.mkdir()
    run_git(other, "init", "-q")
    assert turn_off(repository, "github", True, store)
    assert not turn_off(repository, "github", True, store)  # already off
    run_git(repository, "worktree", "add", "-q", str(tmp_path / "feature"))
    assert servers_off(tmp_path / "feature", store) == {"github"}
    assert servers_off(other, store) == frozenset()
    assert store.stat().st_mode & 0o777 == 0o600
    assert turn_off(tmp_path / "feature", "github", False, store)
    assert servers_off(repository, store) == frozenset()


def test_an_unreadable_store_turns_nothing_off(tmp_path: Path) -> None:
    store = tmp_path / "workspace-servers.json"
    store.write_text("{not json")
    assert servers_off(tmp_path, store) == frozenset()
