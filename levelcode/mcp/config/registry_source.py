"""Which MCP Registry `levelcode mcp search` and `levelcode mcp add … --from-registry` ask: the one
the organisation's policy names (`mcpRegistry`, which no setting or flag can change), else
`--registry URL` for one command, else `mcpRegistry` in the user's own settings, else the
official registry.

Pure: the settings and the policy as data in, the choice out; never contacts a registry. A
repository's settings never name the registry (the key is the user's only, policy/settings.py):
the registry's answer decides what a server runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from levelcode.core.errors import ConfigError
from levelcode.policy.managed_policy import ManagedPolicy, registry_url_problem

PURE = True

DEFAULT_REGISTRY = "https://registry.modelcontextprotocol.io"
REGISTRY_SETTING = "mcpRegistry"


@dataclass(frozen=True)
class RegistryChoice:
    url: str  # no trailing slash
    by: str  # who chose it, as said: "your organisation's policy (FILE)", "your settings (FILE)", …
    fixed: bool = False  # the organisation's: nothing else may be asked


def choose_registry(
    user: Mapping[str, object], user_file: str, policy: ManagedPolicy, asked: str | None = None
) -> RegistryChoice:
    """The registry to ask; ConfigError for a URL that cannot be one, or a `--registry` the
    organisation's policy does not allow."""
    if policy.registry is not None:
        fixed = RegistryChoice(policy.registry, policy.by(), fixed=True)
        if asked is not None and asked.rstrip("/") != policy.registry:
            raise ConfigError(policy.refusal("--registry refused", f"servers come from {policy.registry}"))
        return fixed
    if asked is not None:
        return RegistryChoice(_checked(asked, "--registry"), "--registry")
    written = user.get(REGISTRY_SETTING)
    if written is None:
        return RegistryChoice(DEFAULT_REGISTRY, "the default")
    where = f"{REGISTRY_SETTING} in {user_file}"
    if not isinstance(written, str):
        raise ConfigError(f"{where}: expected the registry's https:// URL", origin=user_file)
    return RegistryChoice(_checked(written, where), f"your settings ({user_file})")


def _checked(url: str, where: str) -> str:
    problem = registry_url_problem(url)
    if problem is not None:
        raise ConfigError(f"{where} {url!r}: {problem}")
    return url.rstrip("/")
