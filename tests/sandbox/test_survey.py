"""What the policy names, found on disk. Load-bearing direction: in every git dir git may write —
the repository's `.git`, a nested repository's, a bare one, submodules' under `.git/modules`, and
the repository a worktree, package folder or submodule checkout lies in — the control paths that
exist are read-only (config, hooks, branches/, a worktree's commondir and gitdir) and the git dir
and the folders above them are anchored; `.git` files, what the user's git config names there and
`.levelcode/` are read-only; every existing secret store and LevelCode's own config and state are
hidden; the cache folder is private. The second corpus: the git dirs themselves (git writes them),
`.gitmodules`, what lies outside the writable folders, what does not exist, and the workspace
itself are not read-only (a missing named path is watched instead); a repository outside is
writable only where it names the worktree back; a folder named through a link under /tmp is
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
from levelcode.sandbox.policy import SandboxPolicy
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


def _policy(workspace: Path, *extra: Path) -> SandboxPolicy:
    return build_policy(workspace, extra, _host(workspace.parent), network=False)


def _read_only(workspace: Path, *extra: Path) -> set[Path]:
    return set(_policy(workspace, *extra).read_only)


def _controls(git_dir: Path) -> set[Path]:
    """What `git init` leaves in a git dir that decides what git runs: kept read-only."""
    return {git_dir / "config", git_dir / "hooks", git_dir / "branches"}


def test_a_repository_s_git_dir_is_writable_and_what_decides_what_git_runs_is_not(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "ws")
    (repo / ".levelcode").mkdir()
    policy = _policy(repo)
    assert set(policy.read_only) == {repo / ".levelcode", *_controls(repo / ".git")}
    assert policy.anchors == (repo / ".git",)  # cannot be renamed away and replaced
    assert policy.git_writable == ()  # it lies in the workspace


def test_a_worktree_s_repository_is_writable_and_its_pointers_read_only(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main")
    _git(main, "worktree", "add", "-q", str(main / "trees" / "wt"), "-b", "feature")
    worktree = main / "trees" / "wt"
    real = main / ".git" / "worktrees" / "wt"
    assert git_dir_of(worktree) == real
    pointers = {worktree / ".git", real / "commondir", real / "gitdir"}
    alone = _policy(worktree)  # the repository lies outside: writable, as git needs it
    assert alone.git_writable == (main / ".git",)
    assert set(alone.read_only) == {*pointers, *_controls(main / ".git")}
    assert {main / ".git", main / ".git" / "worktrees", real} <= set(alone.anchors)
    both = _policy(worktree, main)  # with the main repository writable too: the same islands
    assert both.git_writable == ()
    assert set(both.read_only) == set(alone.read_only)


def test_a_linked_worktree_reads_its_repository_s_config_for_the_hooks_folder(tmp_path: Path) -> None:
    """The main repository's config (the worktree's common dir) names `core.hooksPath`; the hooks
    folder inside the worktree, where the workspace is, stays read-only."""
    main = _repo(tmp_path / "main")
    (main / ".githooks").mkdir()
    (main / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    _git(main, "add", ".githooks")
    _git(main, "commit", "-qm", "hooks")
    _git(main, "config", "core.hooksPath", ".githooks")  # in main/.git/config, not the user's
    _git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    worktree = tmp_path / "wt"
    assert worktree / ".githooks" in _read_only(worktree)


def test_nested_repositories_bare_git_dirs_and_submodules_are_kept_alike(tmp_path: Path) -> None:
    library = _repo(tmp_path / "library")
    repo = _repo(tmp_path / "ws")
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib/sub")
    _repo(repo / "vendor" / "node_modules" / "dep")  # deep inside a dependency folder: found too
    _git(repo, "clone", "-q", "--bare", str(library), "fixtures/lib.git")
    module = repo / ".git" / "modules" / "lib" / "sub"
    policy = _policy(repo)
    git_dirs = {
        repo / ".git",
        module,
        repo / "vendor" / "node_modules" / "dep" / ".git",
        repo / "fixtures" / "lib.git",
    }
    assert git_dirs <= set(policy.anchors)
    assert not git_dirs & set(policy.read_only)  # git writes them
    assert {d / "hooks" for d in git_dirs} <= set(policy.read_only)
    assert repo / "lib" / "sub" / ".git" in policy.read_only  # the submodule's gitdir pointer
    assert repo / ".gitmodules" not in policy.read_only  # git checks it out; it runs nothing
    # the submodule's config is shown without core.worktree, which `submodule update` rewrites
    ((copy, shown),) = policy.views
    assert shown == module / "config"
    assert "worktree" not in copy.read_text()
    assert "worktree" in shown.read_text()
    working_in_the_submodule = _policy(repo / "lib" / "sub")  # its git dir names it back
    assert working_in_the_submodule.git_writable == (module,)


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
    assert set(policy.read_only) == {
        *_controls(repo / ".git"),
        *named,
    }  # not the workspace, not what is missing
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
    assert extra / ".git" / "config" in policy.read_only
    assert extra / ".git" in policy.anchors
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
