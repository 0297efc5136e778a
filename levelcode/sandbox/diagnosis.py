"""What a failed confined command says about the sandbox: which of its refusals (a read-only
file system, a hidden secret store, the network turned off) the output shows.

Pure and conservative: only a command that failed (non-zero exit) is read, and only messages the
sandbox itself causes count, so an ordinary failure is not blamed on it.
"""

from __future__ import annotations

import re
from pathlib import Path

from levelcode.sandbox.policy import SandboxPolicy

WRITE_REFUSED = (
    "[sandbox] writes outside the workspace (and its added folders and /tmp) are refused, and "
    ".git/config, .git/hooks and .levelcode/ are read-only"
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
    if _READ_ONLY.search(output):
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
