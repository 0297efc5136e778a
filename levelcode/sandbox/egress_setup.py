"""A sandbox's route out, set up for a server or for commands: the hosts the user listed, the
hosts the user's package manager is configured to use (read here from the user's and the
system's config files, never the workspace's), where the proxy's socket will be, and the words a
refusal ends with, which say how to allow the host.

Reads those few config files (each at most MAX_CONFIG_BYTES); creates nothing — the proxy makes
its folder when it starts and removes it when it ends.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

from levelcode.policy.network_hosts import Registry, parse_host_entry
from levelcode.sandbox.egress import EgressRoute
from levelcode.sandbox.egress_rules import EgressRules
from levelcode.sandbox.locations import HostPaths
from levelcode.sandbox.package_hosts import PackageSources, config_files, npm_sources, python_sources

MAX_CONFIG_BYTES = 1024 * 1024
USER_SERVER_HINT = (
    'to allow it, add "{host}" to "sandbox": {"network": [...]} in this server\'s entry in your settings'
)
REPOSITORY_SERVER_HINT = (
    "a repository's server reaches only its package registry; to let it reach {host}, declare the "
    'server in your own settings with "sandbox": {"network": ["{host}"]}'
)
COMMAND_HINT = (
    'to allow it, run with --allow-host {host} (or list it in "sandbox": {"network": [...]} in your settings)'
)


def egress_route(
    host: HostPaths,
    env: Mapping[str, str],
    *,
    listed: Iterable[str],
    registry: Registry | None,
    hint: str,
) -> EgressRoute:
    """The route for one sandbox: `listed` hosts (entries the settings or flags accepted), and
    the registry of `registry`'s ecosystem as `env` and the user's config files name it."""
    sources = package_sources(registry, env, host.home) if registry else PackageSources()
    rules = EgressRules(
        tuple(dict.fromkeys((*map(parse_host_entry, listed), *sources.configured))), sources.defaults
    )
    return EgressRoute(socket_folder(host), rules, hint, sources.environment)


def package_sources(registry: Registry, env: Mapping[str, str], home: Path) -> PackageSources:
    files = config_files(env, home)
    if registry == "npm":
        return npm_sources(env, [_read(p) for p in files["npm"]])
    return python_sources(env, [_read(p) for p in files["uv"]], [_read(p) for p in files["pip"]])


def socket_folder(host: HostPaths) -> Path:
    """A fresh folder name for one proxy's socket, in LevelCode's private state."""
    return host.levelcode_state / "sandbox" / "egress" / secrets.token_hex(8)


def _read(path: Path) -> str:
    """The file's text; "" when it is missing, unreadable, not a regular file or too large."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_CONFIG_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
