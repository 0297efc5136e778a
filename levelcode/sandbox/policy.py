"""The sandbox policy as plain data, and the bwrap command line that enforces it.

No I/O of its own: never spawns and never looks at the disk; `survey.py` fills a policy from what exists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.sandbox.egress import (
    EgressRoute,
    egress_mounts,
    forwarder_argv,
    proxy_argv,
    proxy_environment,
)
from levelcode.sandbox.locations import PRIVATE_TMP, cache_environment

if TYPE_CHECKING:
    from levelcode.sandbox.git_guard import GitBaseline


@dataclass(frozen=True)
class SandboxPolicy:
    """What a confined process may touch. Paths are absolute, resolved, and exist on the host."""

    workdir: Path
    # Folders under /tmp shown read-only, as they are on the host (the private /tmp would hide
    # them): a server's workspace and working directory, which it must see even where it may not
    # write them.
    readable: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()  # the workspace and the folders the user added
    # Symbolic links under /tmp that a readable or writable folder was named through, each with
    # the resolved path it leads to (a checkout in /tmp whose node_modules or .venv links to a
    # shared copy): made again in the private /tmp, so the folder is there under the name it was
    # given. The link itself is not resolved; it grants nothing the target's mounts do not.
    links: tuple[tuple[Path, Path], ...] = ()
    # Git dirs outside the writable folders that git may write: the repository the workspace is
    # a linked worktree or a package folder of (git_repositories.py).
    git_writable: tuple[Path, ...] = ()
    # Folders bound onto themselves, writable: each git dir git may write and the folders between
    # it and its read-only islands. A mount point cannot be renamed, replaced or removed, so what
    # is kept inside stays where git looks for it.
    anchors: tuple[Path, ...] = ()
    # Islands inside writable folders: git's control paths in its git dirs (config, hooks, …),
    # .git files, what the user's git config names there, .levelcode/, git dirs past the bound
    # whole. A mount point cannot be renamed or replaced.
    read_only: tuple[Path, ...] = ()
    # Files shown read-only in place of others: (a private copy, the path it is shown at) — a
    # submodule's config without the `core.worktree` that `git submodule update` rewrites
    # (git_controls.py); the real file is never written.
    views: tuple[tuple[Path, Path], ...] = ()
    hidden_dirs: tuple[Path, ...] = ()  # shown as an empty, read-only folder
    hidden_files: tuple[Path, ...] = ()  # shown as an empty file
    cache_dir: Path | None = None  # writable again after hiding: it lives in the hidden state dir
    network: bool = False
    # No network of its own, but the hosts on the route's list through the egress proxy
    # (egress.py); only where `network` is False.
    egress: EgressRoute | None = None
    # What git's control entries under the writable folders were before the process started:
    # what it plants there is moved away after it (git_guard.py, quarantine.py).
    git: GitBaseline | None = None


def bwrap_argv(policy: SandboxPolicy, argv: Sequence[str], *, bwrap: str = "bwrap") -> list[str]:
    """The command line that runs `argv` confined by `policy`.

    Order matters: bwrap mounts in the order given, later over earlier. The whole file system
    read-only, a fresh /tmp, the links made again in it (first: bwrap makes no link where a
    mount already put something), the folders under /tmp that stay visible, then the writable
    folders (some live under /tmp, so they come after it), the read-only islands inside them,
    the hidden paths over everything, then the cache folder, which sits inside the hidden state
    dir, and last the hidden folders made read-only.
    """
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", str(PRIVATE_TMP)]
    for link, target in policy.links:
        args += ["--symlink", str(target), str(link)]
    if policy.egress is not None:
        args += egress_mounts(policy.egress)
    args += _mounts("--ro-bind", policy.readable)  # before the writable ones, which may lie inside
    # A git dir outside is an anchor too: bound once, it is a mount point all the same.
    args += _mounts("--bind", tuple(dict.fromkeys((*policy.writable, *policy.git_writable, *policy.anchors))))
    args += _mounts("--ro-bind", policy.read_only)
    for copy, shown in policy.views:
        args += ["--ro-bind", str(copy), str(shown)]
    for folder in policy.hidden_dirs:
        args += ["--tmpfs", str(folder)]
    for file in policy.hidden_files:
        args += ["--ro-bind", "/dev/null", str(file)]
    if policy.cache_dir is not None:
        args += _mounts("--bind", (policy.cache_dir,))
    for folder in policy.hidden_dirs:  # read-only only now: the cache's mount point is made above
        args += ["--remount-ro", str(folder)]
    # A new pid namespace: nothing inside can see or signal LevelCode, and when bwrap ends, every
    # process left inside ends with it. No capabilities: as root, bwrap would otherwise keep them,
    # and CAP_SYS_ADMIN could simply remount / read-write.
    args += ["--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL", "--die-with-parent"]
    if not policy.network:
        args.append("--unshare-net")
    if policy.egress is not None and not policy.network:
        argv = forwarder_argv(argv)
    return [*args, "--chdir", str(policy.workdir), "--", *argv]


def _mounts(option: str, paths: Sequence[Path]) -> list[str]:
    return [part for path in paths for part in (option, str(path), str(path))]


def sandbox_environment(env: Mapping[str, str], policy: SandboxPolicy) -> dict[str, str]:
    """The command's environment inside: a private TMPDIR, caches in the sandbox's cache folder."""
    inside = {**env, "TMPDIR": str(PRIVATE_TMP)}
    if policy.cache_dir is not None:
        inside.update(cache_environment(policy.cache_dir))
    if policy.egress is not None and not policy.network:
        inside = proxy_environment(inside, policy.egress)
    return inside


def confine(
    argv: Sequence[str], env: Mapping[str, str], policy: SandboxPolicy, *, bwrap: str
) -> tuple[list[str], dict[str, str]]:
    """`argv` and `env` as they must be spawned to run inside the sandbox (and under the egress
    proxy, when the policy has a route out)."""
    confined = bwrap_argv(policy, argv, bwrap=bwrap)
    if policy.egress is not None and not policy.network:
        confined = proxy_argv(policy.egress, confined)
    return confined, sandbox_environment(env, policy)


def describe_policy(policy: SandboxPolicy, home: Path | None = None) -> str:
    """One line for people: what is writable, what is read-only inside it, what is hidden, and
    whether the network is on."""

    def shown(path: Path) -> str:
        if path != policy.workdir and path.is_relative_to(policy.workdir):
            return str(path.relative_to(policy.workdir))
        if home is not None and path != home and path.is_relative_to(home):
            return "~/" + str(path.relative_to(home))
        return str(path)

    writable = [*map(shown, policy.writable), *(f"git dir {shown(d)}" for d in policy.git_writable)]
    writable.append("/tmp (private)")
    if policy.cache_dir is not None:
        writable.append(f"cache {shown(policy.cache_dir)}")
    hidden = [*policy.hidden_dirs, *policy.hidden_files]
    parts = [
        "sandbox: writable " + ", ".join(writable),
        "everything else read-only"
        + (", also " + ", ".join(map(shown, policy.read_only)) if policy.read_only else ""),
        "hidden " + (", ".join(map(shown, hidden)) or "nothing"),
        _network_words(policy),
    ]
    return " · ".join(parts)


def _network_words(policy: SandboxPolicy) -> str:
    if policy.network:
        return "network on"
    if policy.egress is None:
        return "network off"
    return "network only to " + (", ".join(policy.egress.rules.texts()) or "nothing")
