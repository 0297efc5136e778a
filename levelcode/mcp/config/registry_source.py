"""Which MCP Registry `levelcode mcp search` and `levelcode mcp add … --from-registry` ask: the one
the organisation's policy names (`mcpRegistry`, which no setting or flag can change), else
`--registry URL` for one command, else `mcpRegistry` in the user's own settings, else the
official registry.

Pure: the settings and the policy as data in, the choice out; never contacts a registry. A
repository's settings never name the registry (the key is the user's only, policy/settings.py):
the registry's answer decides what a server runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from levelcode.core.errors import ConfigError
from levelcode.policy.managed_policy import registry_url_problem
from levelcode.policy.settings import Settings
from levelcode.policy.settings_keys import REGISTRY_KEY

PURE = True

DEFAULT_REGISTRY = "https://registry.modelcontextprotocol.io"


@dataclass(frozen=True)
class RegistryChoice:
    url: str  # no trailing slash
    by: str  # who chose it, as said: "your organisation's policy (FILE)", "your settings (FILE)", …
    fixed: bool = False  # the organisation's: nothing else may be asked


def choose_registry(settings: Settings, asked: str | None = None) -> RegistryChoice:
    """The registry to ask; ConfigError for a URL that cannot be one, or a `--registry` the
    organisation's policy does not allow."""
    policy, file = settings.managed, str(settings.user_file)
    if policy.registry is not None:
        fixed = RegistryChoice(policy.registry, policy.by(), fixed=True)
        if asked is not None and asked.rstrip("/") != policy.registry:
            raise ConfigError(policy.refusal("--registry refused", f"servers come from {policy.registry}"))
        return fixed
    if asked is not None:
        return RegistryChoice(_checked(asked, "--registry"), "--registry")
    if settings.registry is not None:
        return RegistryChoice(settings.registry, f"your settings ({file})")
    problem = settings.problem_with(REGISTRY_KEY)
    if problem is not None:  # not the default: the user meant another registry
        raise ConfigError(f"{REGISTRY_KEY} in {file}: {problem.message}", origin=file)
    return RegistryChoice(DEFAULT_REGISTRY, "the default")


def _checked(url: str, where: str) -> str:
    problem = registry_url_problem(url)
    if problem is not None:
        raise ConfigError(f"{where} {url!r}: {problem}")
    return url.rstrip("/")
