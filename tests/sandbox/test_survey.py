"""What the policy names, found on disk. Load-bearing direction: every git dir inside the writable
folders is read-only as a whole (the repository's `.git`, a nested repository's, a bare one, a
worktree's real git dirs when they lie there, submodules' under `.git/modules`), as are `.git`
files, `.gitmodules`, what the user's git config names there, `.levelcode/`; every existing secret
store and LevelCode's own config and state are hidden; the cache folder is private. The second
corpus: what lies outside the writable folders, what does not exist, and the workspace itself are
not named (a missing named path is watched instead); a folder named through a link under /tmp is
there, in a real sandbox, by that name."""

from __future__ import annotations

import contextlib
import stat
import subprocess
from pathlib import Path

import pytest

from levelcode.platform import paths
from levelcode.sandbox.git_layout import git_dir_of
from levelcode.sandbox.locations import HostPaths
from levelcode.sandbox.survey import build_policy, confined_policy, links_in_tmp
from tests.support.sandbox import host_folder, real_confinement


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


def _read_only(workspace: Path, *extra: Path) -> set[Path]:
    return set(build_policy(workspace, extra, _host(workspace.parent), network=False).read_only)


def test_a_repository_s_git_dir_is_read_only_whole(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "ws")
    (repo / ".levelcode").mkdir()
    assert _read_only(repo) == {repo / ".levelcode", repo / ".git"}


def test_a_worktree_protects_its_git_file_and_its_real_git_dirs_where_writable(
    tmp_path: Path,
) -> None:
    main = _repo(tmp_path / "main")
    _git(main, "worktree", "add", "-q", str(main / "trees" / "wt"), "-b", "feature")
    worktree = main / "trees" / "wt"
    real = main / ".git" / "worktrees" / "wt"
    assert git_dir_of(worktree) == real
    alone = _read_only(worktree)  # the real git dirs lie outside: read-only like all of the disk
    assert alone == {worktree / ".git"}
    both = _read_only(worktree, main)  # with the main repository writable too, its .git is kept
    assert both == {worktree / ".git", main / ".git"}


def test_nested_repositories_bare_git_dirs_and_gitmodules_are_read_only(tmp_path: Path) -> None:
    library = _repo(tmp_path / "library")
    repo = _repo(tmp_path / "ws")
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib/sub")
    _repo(repo / "vendor" / "node_modules" / "dep")  # deep inside a dependency folder: found too
    _git(repo, "clone", "-q", "--bare", str(library), "fixtures/lib.git")
    assert _read_only(repo) == {
        repo / ".git",  # the submodule's git dir, .git/modules/lib/sub, inside it
        repo / ".gitmodules",
        repo / "lib" / "sub" / ".git",  # its gitdir pointer
        repo / "vendor" / "node_modules" / "dep" / ".git",
        repo / "fixtures" / "lib.git",  # a bare repository: a folder that is a git dir
    }
    working_in_the_submodule = _read_only(repo / "lib" / "sub")
    assert working_in_the_submodule == {repo / "lib" / "sub" / ".git"}  # its git dir lies outside


def test_what_the_user_s_git_config_names_inside_the_workspace_is_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "ws")
    for name in ("hooks/pre-commit", "tools/clean", "local.cfg", "nested.cfg"):
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text("x\n")
    (repo / "local.cfg").write_text("[include]\n\tpath = nested.cfg\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[includeIf "gitdir:/elsewhere/"]\n\tpath = {repo}/local.cfg\n'
        '[core]\n\thooksPath = hooks\n[filter "fmt"]\n\tclean = ./tools/clean --fast\n'
        f"[alias]\n\tdeploy = !./missing/deploy.sh\n\troot = !cd {repo} && ls\n"
    )
    monkeypatch.setenv("HOME", str(home))
    host = HostPaths(home, home / ".config", paths.config_dir(), paths.state_dir())
    policy = build_policy(repo, [], host, network=False)
    named = {repo / "hooks", repo / "tools" / "clean", repo / "local.cfg", repo / "nested.cfg"}
    assert set(policy.read_only) == {repo / ".git", *named}  # not the workspace itself, not what is missing
    assert policy.git is not None
    watched = {n.path for n in policy.git.named}
    assert repo / "missing" / "deploy.sh" in watched  # missing: watched, in case it appears
    assert repo not in watched


def test_nothing_is_named_where_nothing_exists(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    assert _read_only(tmp_path / "ws") == set()
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
    assert extra / ".git" in policy.read_only
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
    assert workspace.resolve() / ".git" in policy.read_only
    assert policy.cache_dir == own.resolve()
    assert stat.S_IMODE(own.stat().st_mode) == 0o700


def test_the_links_in_tmp_a_folder_is_named_through_are_found_each_with_where_it_leads(
    tmp_path: Path,
) -> None:
    outside = Path("/usr/share")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "second").symlink_to(outside)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "first").symlink_to("../b")  # relative: recorded as the path it stands for
    (tmp_path / "plain").mkdir()
    named = [tmp_path / "a" / "first" / "second" / "doc", tmp_path / "plain", Path("/usr/share/doc")]
    assert links_in_tmp(named) == [
        (tmp_path / "a" / "first", (tmp_path / "b").resolve()),
        ((tmp_path / "b").resolve() / "second", outside),
    ]
    assert links_in_tmp(named[1:]) == []  # no link, or not under /tmp: as the host has it


@pytest.mark.sandbox
@pytest.mark.parametrize("outside_tmp", [True, False], ids=["shared-outside-tmp", "shared-in-tmp"])
def test_a_folder_named_through_a_link_in_tmp_is_there_by_that_name(
    tmp_path: Path, outside_tmp: bool
) -> None:
    """A checkout in /tmp whose node_modules links to a shared copy: its `.bin` program runs inside
    by the name it was given (the private /tmp would lose the link)."""
    with contextlib.ExitStack() as stack:
        shared = stack.enter_context(host_folder()) if outside_tmp else tmp_path / "shared"
        (shared / ".bin").mkdir(parents=True)
        program = shared / ".bin" / "hello"
        program.write_text("#!/bin/sh\necho hello from the shared copy\n")
        program.chmod(0o755)
        (tmp_path / "checkout").mkdir()
        (tmp_path / "checkout" / "node_modules").symlink_to(shared)
        workspace = tmp_path / "ws"
        workspace.mkdir()
        own = paths.state_dir() / "servers" / "s"
        modules = tmp_path / "checkout" / "node_modules"
        policy = confined_policy(
            workspace, [workspace], own, _host(tmp_path), network=False, readable_dirs=(modules,)
        )
        wrap = real_confinement().wrap(policy)
        argv, env = wrap([str(modules / ".bin" / "hello")], {"PATH": "/usr/bin:/bin"})
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout == "hello from the shared copy\n", done.stderr
