"""What the policy names, found on disk. Load-bearing direction: every existing git control file
(config, config.worktree, hooks, commondir — of the repository, of a worktree's real git dir, of
submodules), a `.git` file, `.levelcode/`, and every existing secret store and LevelCode's own
config and state are named; the cache folder is private. The second corpus: what git must write
(objects, index, refs, HEAD) is not made read-only, and what does not exist is not named."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from levelcode.core import paths
from levelcode.sandbox.locations import HostPaths
from levelcode.sandbox.survey import build_policy, confined_policy, git_dir_of, protected_paths


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q")
    _git(path, "config", "user.email", "dev@example.com")
    _git(path, "config", "user.name", "Dev")
    (path / "f.txt").write_text("x\n")
    _git(path, "add", "f.txt")
    _git(path, "commit", "-qm", "first")
    return path


def _host(tmp_path: Path) -> HostPaths:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return HostPaths(home, home / ".config", paths.config_dir(), paths.state_dir())  # the isolated ones


def test_a_plain_repository_pins_git_and_protects_its_control_files(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "ws")
    (repo / ".levelcode").mkdir()
    pinned, read_only = protected_paths(repo)
    assert pinned == [repo / ".git"]
    assert set(read_only) == {repo / ".levelcode", repo / ".git/config", repo / ".git/hooks"}
    for writable in ("objects", "index", "refs", "HEAD", "logs"):
        assert repo / ".git" / writable not in read_only


def test_a_worktree_protects_its_git_file_and_the_real_git_dirs(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main")
    _git(main, "config", "extensions.worktreeConfig", "true")
    _git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    worktree = tmp_path / "wt"
    _git(worktree, "config", "--worktree", "core.editor", "true")
    real = main / ".git" / "worktrees" / "wt"
    assert git_dir_of(worktree) == real
    pinned, read_only = protected_paths(worktree)
    assert pinned == []  # the .git here is a file: protected itself, below
    assert worktree / ".git" in read_only
    assert real / "commondir" in read_only
    assert real / "config.worktree" in read_only
    assert main / ".git" / "config" in read_only
    assert main / ".git" / "hooks" in read_only


def test_submodules_config_and_hooks_are_protected(tmp_path: Path) -> None:
    library = _repo(tmp_path / "library")
    repo = _repo(tmp_path / "ws")
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib/sub")
    modules = repo / ".git" / "modules" / "lib" / "sub"
    _, read_only = protected_paths(repo)
    assert modules / "config" in read_only
    assert modules / "hooks" in read_only
    _, inside = protected_paths(repo / "lib" / "sub")  # working in the submodule itself
    assert repo / "lib" / "sub" / ".git" in inside
    assert modules / "config" in inside


def test_nothing_is_named_where_nothing_exists(tmp_path: Path) -> None:
    assert protected_paths(tmp_path) == ([], [])
    (tmp_path / ".git").write_text("not a pointer\n")
    assert git_dir_of(tmp_path) is None


def test_existing_secret_stores_and_levelcode_dirs_are_hidden(tmp_path: Path) -> None:
    host = _host(tmp_path)
    (host.home / ".ssh").mkdir()
    (host.home / ".config" / "gh").mkdir(parents=True)
    (host.home / ".netrc").write_text("machine x password y\n")
    (host.home / ".docker").mkdir()
    (host.home / ".docker" / "config.json").write_text("{}")
    host.levelcode_state.mkdir(parents=True)
    policy = build_policy(_repo(tmp_path / "ws"), [], host, network=False)
    lc = host.levelcode_config  # LEVELCODE_HOME: the state dir lies inside it
    assert set(policy.hidden_dirs) == {host.home / ".ssh", host.home / ".config" / "gh", lc}
    assert set(policy.hidden_files) == {host.home / ".netrc", host.home / ".docker" / "config.json"}
    assert host.home / ".aws" not in policy.hidden_dirs  # absent: not named


def test_nested_hidden_paths_are_named_once_by_their_outer_folder(tmp_path: Path) -> None:
    host = _host(tmp_path)  # state lives inside the LevelCode home, which is hidden as a whole
    policy = build_policy(tmp_path, [], host, network=False)
    assert policy.hidden_dirs == (host.levelcode_config,)


def test_the_cache_folder_is_private_and_per_workspace(tmp_path: Path) -> None:
    host = _host(tmp_path)
    one = build_policy(_repo(tmp_path / "one"), [], host, network=False)
    two = build_policy(_repo(tmp_path / "two"), [], host, network=False)
    assert one.cache_dir is not None
    assert two.cache_dir is not None
    assert one.cache_dir != two.cache_dir
    assert one.cache_dir.is_relative_to(host.levelcode_state / "sandbox")
    for folder in (one.cache_dir, one.cache_dir.parent, host.levelcode_state / "sandbox"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.mark.parametrize("network", [False, True])
def test_added_folders_are_writable_and_protected_alike(tmp_path: Path, network: bool) -> None:
    extra = _repo(tmp_path / "extra")
    policy = build_policy(
        _repo(tmp_path / "ws"), [extra, tmp_path / "missing"], _host(tmp_path), network=network
    )
    assert policy.writable == (tmp_path / "ws", extra)
    assert extra / ".git" / "config" in policy.read_only
    assert policy.network is network


def test_a_servers_policy_writes_its_folders_and_keeps_only_tmp_folders_visible(tmp_path: Path) -> None:
    workspace = _repo(tmp_path / "ws")
    own = paths.state_dir() / "servers" / "s"
    policy = confined_policy(
        workspace, [workspace], own, _host(tmp_path), network=False, readable_dirs=(workspace, Path("/usr"))
    )
    assert policy.workdir == workspace
    assert policy.readable == (workspace.resolve(),)  # /usr is visible anyway: only /tmp hides things
    assert policy.writable == (workspace.resolve(),)
    assert workspace.resolve() / ".git" / "config" in policy.read_only
    assert policy.cache_dir == own.resolve()
    assert stat.S_IMODE(own.stat().st_mode) == 0o700
