"""What a failed confined command says about the sandbox: which of its refusals (a read-only
file system, git's own read-only folders, a hidden secret store, the network turned off) the
output shows.

Pure and conservative: only a command that failed (non-zero exit) is read, and only messages the
sandbox itself causes count, so an ordinary failure is not blamed on it.
"""

from __future__ import annotations

import re
from pathlib import Path

from levelcode.sandbox.policy import SandboxPolicy

WRITE_REFUSED = (
    "[sandbox] writes outside the workspace (and its added folders and /tmp) are refused, and "
    "git's folders (.git), the files the user's git config names and .levelcode/ are read-only"
)
GIT_READ_ONLY = (
    "[sandbox] .git (and .gitmodules) are read-only in the sandbox, so git commands that write "
    "them (add, commit, checkout, switch, stash, fetch, merge, rebase, submodule) fail here, while "
    "status, diff, log and show work: nothing a sandboxed command writes may decide what the "
    "user's git runs. The user can run that git command outside the sandbox"
)
SECRETS_HIDDEN = (
    "[sandbox] the user's secret stores (~/.ssh, ~/.aws, ~/.gnupg, cloud and registry credentials) "
    "and LevelCode's own settings and state are hidden from commands"
)
NETWORK_OFF = (
    "[sandbox] the network is off — the user can allow it with --allow-network "
    '(or "sandbox": {"network": true} in their settings.json)'
)

_READ_ONLY = re.compile(r"read-only file system|\bEROFS\b", re.IGNORECASE)
_GIT_PATH = re.compile(r"(^|[/\s'\"`])\.git(modules)?([/:'\"`\s]|$)")  # a refused write into .git
_NETWORK = re.compile(
    r"network is unreachable|\bENETUNREACH\b|could not resolve|couldn't resolve|"
    r"temporary failure in name resolution|name or service not known|\bEAI_AGAIN\b|"
    r"failed to resolve|getaddrinfo|connection refused|\bECONNREFUSED\b|"
    r"failed to establish a new connection|failed to connect",
    re.IGNORECASE,
)


def sandbox_refusals(output: str, returncode: int | None, policy: SandboxPolicy) -> tuple[str, ...]:
    """One line per refusal the output of a failed command shows; () when it did not fail."""
    if returncode is None or returncode == 0:
        return ()
    found: list[str] = []
    refused = [line for line in output.splitlines() if _READ_ONLY.search(line)]
    if any(_GIT_PATH.search(line) for line in refused):
        found.append(GIT_READ_ONLY)
    if any(not _GIT_PATH.search(line) for line in refused):
        found.append(WRITE_REFUSED)
    if _mentions_hidden(output, policy):
        found.append(SECRETS_HIDDEN)
    if not policy.network and _NETWORK.search(output):
        found.append(NETWORK_OFF)
    return tuple(found)


def _mentions_hidden(output: str, policy: SandboxPolicy) -> bool:
    if policy.cache_dir is not None:  # the cache lives in the hidden state dir, but is not hidden
        output = output.replace(str(policy.cache_dir), "")
    hidden: list[Path] = [*policy.hidden_dirs, *policy.hidden_files]
    return any(str(path) in output for path in hidden)
