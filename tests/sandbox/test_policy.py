"""The bwrap command line a policy becomes. Load-bearing direction: the whole file system is
mounted read-only, capabilities are dropped, the network is cut unless the policy allows it, and
the mounts come in the order that keeps every protection on top (a writable folder never lands
over a read-only island or a hidden store). The second corpus: what must stay usable — the
workspace, /tmp, the cache folder — is bound writable."""

from __future__ import annotations

from pathlib import Path

from levelcode.sandbox.locations import CACHE_VARIABLES, cache_environment
from levelcode.sandbox.policy import SandboxPolicy, bwrap_argv, describe_policy, sandbox_environment

WS = Path("/work/ws")
POLICY = SandboxPolicy(
    workdir=WS,
    writable=(WS, Path("/data/extra")),
    read_only=(WS / ".git", WS / "sub/.gitmodules", WS / ".levelcode"),
    hidden_dirs=(Path("/home/u/.ssh"), Path("/home/u/.local/state/levelcode")),
    hidden_files=(Path("/home/u/.netrc"),),
    cache_dir=Path("/home/u/.local/state/levelcode/sandbox/cache/ws-1"),
)


def _pairs(argv: list[str], option: str) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv) if word == option]


def _position(argv: list[str], *words: str) -> int:
    for i in range(len(argv) - len(words) + 1):
        if tuple(argv[i : i + len(words)]) == words:
            return i
    raise AssertionError(f"{words} not in {argv}")


def test_the_root_is_read_only_and_nothing_keeps_a_capability() -> None:
    argv = bwrap_argv(POLICY, ["bash", "-c", "true"])
    assert argv[:4] == ["bwrap", "--ro-bind", "/", "/"]
    assert _position(argv, "--cap-drop", "ALL")
    for flag in ("--unshare-pid", "--unshare-ipc", "--die-with-parent"):
        assert flag in argv
    assert argv[-5:] == [str(WS), "--", "bash", "-c", "true"]
    assert _pairs(argv, "--chdir") == [str(WS)]


def test_the_network_is_cut_unless_the_policy_allows_it() -> None:
    assert "--unshare-net" in bwrap_argv(POLICY, ["true"])
    allowed = SandboxPolicy(workdir=WS, network=True)
    assert "--unshare-net" not in bwrap_argv(allowed, ["true"])


def test_mount_order_keeps_every_protection_on_top() -> None:
    argv = bwrap_argv(POLICY, ["true"])
    tmp = _position(argv, "--tmpfs", "/tmp")
    workspace = _position(argv, "--bind", str(WS), str(WS))
    extra = _position(argv, "--bind", "/data/extra", "/data/extra")
    git = _position(argv, "--ro-bind", str(WS / ".git"), str(WS / ".git"))
    modules = _position(argv, "--ro-bind", str(WS / "sub/.gitmodules"), str(WS / "sub/.gitmodules"))
    ssh = _position(argv, "--tmpfs", "/home/u/.ssh")
    netrc = _position(argv, "--ro-bind", "/dev/null", "/home/u/.netrc")
    cache = _position(argv, "--bind", str(POLICY.cache_dir), str(POLICY.cache_dir))
    sealed = _position(argv, "--remount-ro", "/home/u/.local/state/levelcode")
    # /tmp first (writable folders may live under it), islands over the writable folders, secrets
    # over everything, the cache (inside the hidden state dir) after, and read-only sealing last.
    assert tmp < workspace < extra < git < modules < ssh < netrc < cache < sealed


def test_git_dirs_and_anchors_come_before_the_islands_in_them_and_views_after() -> None:
    """A git dir outside the writable folders, then the git dirs bound onto themselves (outermost
    first), then the read-only control paths inside, then the copies shown over a config."""
    main = Path("/work/main/.git")
    policy = SandboxPolicy(
        workdir=WS,
        writable=(WS,),
        git_writable=(main,),
        anchors=(main, main / "worktrees", main / "worktrees" / "ws"),
        read_only=(main / "config", main / "worktrees" / "ws" / "commondir"),
        views=((Path("/state/view"), main / "modules" / "lib" / "config"),),
    )
    argv = bwrap_argv(policy, ["true"])
    workspace = _position(argv, "--bind", str(WS), str(WS))
    outside = _position(argv, "--bind", str(main), str(main))
    anchor = _position(argv, "--bind", str(main / "worktrees"), str(main / "worktrees"))
    inner = _position(argv, "--bind", str(main / "worktrees" / "ws"), str(main / "worktrees" / "ws"))
    config = _position(argv, "--ro-bind", str(main / "config"), str(main / "config"))
    pointer = _position(argv, "--ro-bind", *(2 * [str(main / "worktrees" / "ws" / "commondir")]))
    view = _position(argv, "--ro-bind", "/state/view", str(main / "modules" / "lib" / "config"))
    assert workspace < outside < anchor < inner < config < pointer < view
    assert _pairs(argv, "--bind").count(str(main)) == 1  # bound once: a mount point all the same


def test_hidden_folders_are_empty_and_read_only() -> None:
    argv = bwrap_argv(POLICY, ["true"])
    for folder in POLICY.hidden_dirs:
        assert str(folder) in _pairs(argv, "--tmpfs")
        assert str(folder) in _pairs(argv, "--remount-ro")


def test_what_must_stay_usable_is_bound_writable() -> None:
    binds = _pairs(bwrap_argv(POLICY, ["true"]), "--bind")
    assert binds == [str(WS), "/data/extra", str(POLICY.cache_dir)]  # .git is never among them


def test_the_environment_inside_has_a_private_tmp_and_the_cache_folder() -> None:
    env = sandbox_environment({"PATH": "/usr/bin", "UV_CACHE_DIR": "/home/u/.cache/uv"}, POLICY)
    assert env["PATH"] == "/usr/bin"
    assert env["TMPDIR"] == "/tmp"
    assert env["UV_CACHE_DIR"] == str(POLICY.cache_dir / "uv")  # the user's own is read-only inside
    assert env["XDG_CACHE_HOME"] == str(POLICY.cache_dir)
    assert {name for name, _ in CACHE_VARIABLES} <= set(env)
    assert set(cache_environment(Path("/c"))) == {name for name, _ in CACHE_VARIABLES}


def test_the_summary_names_what_is_writable_protected_and_hidden() -> None:
    line = describe_policy(POLICY, Path("/home/u"))
    assert "\n" not in line
    assert line.startswith("sandbox: writable /work/ws, /data/extra, /tmp (private)")
    assert "also .git, sub/.gitmodules, .levelcode" in line
    assert "hidden ~/.ssh, ~/.local/state/levelcode, ~/.netrc" in line
    assert line.endswith("network off")


def test_folders_kept_visible_under_tmp_come_before_the_writable_ones_inside_them() -> None:
    workspace = Path("/tmp/ws")
    policy = SandboxPolicy(workdir=workspace, readable=(workspace,), writable=(workspace / "out",))
    argv = bwrap_argv(policy, ["true"])
    tmp = _position(argv, "--tmpfs", "/tmp")
    shown = _position(argv, "--ro-bind", str(workspace), str(workspace))
    out = _position(argv, "--bind", str(workspace / "out"), str(workspace / "out"))
    assert tmp < shown < out  # read-only over the private /tmp, and never over a writable folder


def test_links_in_tmp_are_made_before_anything_is_mounted_there() -> None:
    checkout = Path("/tmp/checkout")
    policy = SandboxPolicy(
        workdir=checkout,
        readable=(checkout,),
        links=((checkout / "node_modules", Path("/srv/shared/node_modules")),),
    )
    argv = bwrap_argv(policy, ["true"])
    tmp = _position(argv, "--tmpfs", "/tmp")
    link = _position(argv, "--symlink", "/srv/shared/node_modules", str(checkout / "node_modules"))
    shown = _position(argv, "--ro-bind", str(checkout), str(checkout))
    assert tmp < link < shown  # in the fresh /tmp; bwrap makes no link where a mount put a file
