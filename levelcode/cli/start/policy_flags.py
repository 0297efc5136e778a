"""The command-line flags an organisation's policy can forbid (policy/managed_policy.py):
`--autopilot`, `--allow-network`, and `--allow-host` beyond its allowed hosts. Light: checked
before a session spawns anything, so it imports only core and policy.
"""

from __future__ import annotations

import argparse

from levelcode.core.errors import ConfigError
from levelcode.policy.settings import Settings


def refuse_forbidden_flags(args: argparse.Namespace, settings: Settings) -> None:
    """Raise ConfigError for a flag the organisation's policy forbids (`--autopilot`,
    `--allow-network`, an `--allow-host` outside its hosts): asked for on the command line, it is
    refused rather than quietly dropped, so a script learns it will not get what it asked."""
    policy = settings.managed
    refused: list[str] = []
    if getattr(args, "autopilot", False) and not policy.autopilot:
        refused.append("--autopilot")
    if getattr(args, "allow_network", False) and not policy.whole_network:
        refused.append("--allow-network")
    hosts = getattr(args, "allow_hosts", None) or ()
    refused += [f"--allow-host {host}" for host in hosts if not policy.host_allowed(host)]
    if not refused:
        return
    listed = policy.allowed_hosts if policy.allow_network else ()
    networked = any(flag != "--autopilot" for flag in refused)
    allowed = f" (allowed hosts: {', '.join(listed) or 'none'})" if networked and listed is not None else ""
    raise ConfigError(f"{', '.join(refused)}: " + policy.refusal("refused") + allowed)
