"""What a failed confined command says about the sandbox: which of its refusals (a read-only
file system, git's control files kept read-only, a hidden secret store, the network turned off or
filtered, the private /tmp) the output shows.

Pure and conservative: only a command that failed (non-zero exit) is read, and only messages the
sandbox itself causes count, so an ordinary failure is not blamed on it. One look at the disk: a
/tmp path the output says is missing is blamed on the private /tmp only where it exists on the
host (`exists`, which a caller may replace).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from levelcode.sandbox.egress_rules import REFUSED
from levelcode.sandbox.policy import SandboxPolicy

WRITE_REFUSED = (
    "[sandbox] writes outside the workspace (and its added folders and /tmp) are refused, and "
    "the files that decide what git runs, the files the user's git config names and .levelcode/ "
    "are read-only"
)
GIT_READ_ONLY = (
    "[sandbox] git works in the sandbox (add, commit, branch, switch, merge, rebase, stash, tag, "
    "reset, worktree add, submodule update), but what decides what git runs stays read-only there: "
    "config and config.worktree, hooks, the pointers between a repository and its worktrees and "
    "submodules (commondir, gitdir, .git files), info/attributes, objects/info/alternates, "
    "remotes/ and branches/. So commands that change them fail here — git config, remote add, "
    "branch --set-upstream-to, submodule init/add/deinit, worktree remove/move/prune: nothing a "
    "sandboxed command writes may decide what the user's git runs. The user can run that git "
    "command outside the sandbox"
)
SECRETS_HIDDEN = (
    "[sandbox] the user's secret stores (~/.ssh, ~/.aws, ~/.gnupg, cloud and registry credentials) "
    "and LevelCode's own settings and state are hidden from commands"
)
NETWORK_OFF = (
    "[sandbox] the network is off — the user can allow a host with --allow-host HOST, or all of it "
    'with --allow-network (or in their settings.json: "sandbox": {"network": ["HOST"]}, or '
    '"sandbox": {"network": true})'
)
NETWORK_FILTERED = (
    "[sandbox] the network reaches only {hosts} — the user can allow another host with --allow-host "
    "HOST, or all of it with --allow-network"
)

_READ_ONLY = re.compile(r"read-only file system|\bEROFS\b", re.IGNORECASE)
# A file kept read-only by a mount over it cannot be replaced either: git writes a config through
# `config.lock` and a rename, which the mount point refuses with EBUSY.
_BUSY = re.compile(r"device or resource busy|\bEBUSY\b", re.IGNORECASE)
_GIT_PATH = re.compile(r"(^|[/\s'\"`])\.git([/:'\"`\s]|$)")  # a refused write into a git dir
_NETWORK = re.compile(
    r"network is unreachable|\bENETUNREACH\b|could not resolve|couldn't resolve|"
    r"temporary failure in name resolution|name or service not known|\bEAI_AGAIN\b|"
    r"failed to resolve|getaddrinfo|connection refused|\bECONNREFUSED\b|"
    r"failed to establish a new connection|failed to connect",
    re.IGNORECASE,
)
_TMP_PATH = re.compile(r"(?<![\w/.~-])/tmp/[^\s'\"`:;,()\[\]]+")
_MISSING = re.compile(r"no such file or directory|not found|can't open file|cannot find", re.IGNORECASE)


def sandbox_refusals(
    output: str,
    returncode: int | None,
    policy: SandboxPolicy,
    *,
    exists: Callable[[str], bool] = os.path.lexists,
) -> tuple[str, ...]:
    """One line per refusal the output of a failed command shows; () when it did not fail."""
    if returncode is None or returncode == 0:
        return ()
    found: list[str] = []
    lines = output.splitlines()
    refused = [line for line in lines if _READ_ONLY.search(line)]
    busy = [line for line in lines if _BUSY.search(line)]
    if any(_GIT_PATH.search(line) for line in (*refused, *busy)):
        found.append(GIT_READ_ONLY)
    if any(not _GIT_PATH.search(line) for line in refused):
        found.append(WRITE_REFUSED)
    if _mentions_hidden(output, policy):
        found.append(SECRETS_HIDDEN)
    if not policy.network and (_NETWORK.search(output) or (policy.egress and REFUSED in output)):
        found.append(_network_refusal(policy))
    hidden_tmp = _hidden_tmp_path(output, policy, exists)
    if hidden_tmp is not None:
        found.append(private_tmp_line(hidden_tmp))
    return tuple(found)


def _network_refusal(policy: SandboxPolicy) -> str:
    if policy.egress is None:
        return NETWORK_OFF
    return NETWORK_FILTERED.format(hosts=", ".join(policy.egress.rules.texts()) or "no host")


def private_tmp_line(path: str) -> str:
    folder = str(Path(path).parent)
    fix = f"--add-dir {folder}" if folder != "/tmp" else "a folder outside /tmp"
    return (
        f"[sandbox] /tmp is private in the sandbox: {path} is on this machine but not in there; "
        f"move it out of /tmp, or let commands use its folder with {fix}"
    )


def _hidden_tmp_path(output: str, policy: SandboxPolicy, exists: Callable[[str], bool]) -> str | None:
    """A path under /tmp the output says is missing, which exists on the host and is not one of
    the folders the sandbox shows: the private /tmp hid it."""
    if not _MISSING.search(output):
        return None
    shown = [*policy.writable, *policy.readable]
    for match in _TMP_PATH.finditer(output):
        path = match.group(0).rstrip(".")
        if not any(Path(path).is_relative_to(folder) for folder in shown) and exists(path):
            return path
    return None


def _mentions_hidden(output: str, policy: SandboxPolicy) -> bool:
    if policy.cache_dir is not None:  # the cache lives in the hidden state dir, but is not hidden
        output = output.replace(str(policy.cache_dir), "")
    hidden: list[Path] = [*policy.hidden_dirs, *policy.hidden_files]
    return any(str(path) in output for path in hidden)
