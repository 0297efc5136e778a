"""The shape of the settings: the user's own settings file (user tier) and a repository's
`.levelcode/settings.json`, parsed from their documents once into one typed `Settings` (each key by
policy/settings_keys.py), with its problems collected there, and the keys a repository may never
set. No other module reads a settings document's keys (tests/test_seams.py checks).

Lenient: a broken file is reported and treated as empty, so that `mcp list` and the like
still show the rest; a session (`levelcode`, `run`) refuses to start on a user file it cannot use
(`unusable_user_file`), rather than run without the user's provider, servers and policy.
Security-relevant keys (`mcpServers`, `mcpToolPolicy`, `autopilot`, `sandbox`, `provider`,
`baseUrl`, `apiKey`, `commandRules`, `mcpRegistry`), and `prices` and `profiles`, come from the
user's file only; a repository's file that sets one is reported and the key ignored. Above both stands the
organisation's policy (policy/managed_policy.py), read with them: what it turns off, the user's
settings cannot turn on. Pure: documents in, `Settings` out; never reads a file
(platform/settings_files.py reads them, platform/settings_store.py writes the user's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import is_absent
from levelcode.policy import settings_keys as keys
from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy
from levelcode.policy.prices import Price, parse_prices
from levelcode.policy.profiles import PROFILES_KEY, Profile, parse_profiles
from levelcode.policy.settings_keys import DEFAULT_SHARE, ProviderPreferences, ToolSearchMode

PURE = True

# Keys a repository's own settings file may never set: they decide what runs (mcpServers), what
# runs without asking (mcpToolPolicy, autopilot), what the sandbox lets through (sandbox), and
# where the API key is sent (provider, baseUrl, apiKey); nor what the user is told a session
# cost (prices); nor which commands run without a card (commandRules); nor which servers a named
# set starts (profiles); nor which MCP Registry's answers become server entries (mcpRegistry).
USER_ONLY_KEYS = (
    "mcpServers",
    "mcpToolPolicy",
    "autopilot",
    "sandbox",
    "provider",
    "baseUrl",
    "apiKey",
    "prices",
    "commandRules",
    "profiles",
    "mcpRegistry",
)


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The settings of one session, parsed once: each key's value typed, the organisation's policy
    applied, every problem found in `problems` (the policy's first). Nothing else reads the
    documents' keys."""

    user_file: Path  # where the user's own settings are (read or not)
    managed: ManagedPolicy = NO_POLICY  # the organisation's policy, read with them
    problems: tuple[ConfigProblem, ...] = ()
    autopilot: bool = False  # `"autopilot": true`, unless the policy turns it off
    sandbox_network: bool = False  # `"sandbox": {"network": true}`: commands use the network
    sandbox_hosts: tuple[str, ...] = ()  # `"sandbox": {"network": ["host", …]}`: within the policy
    allowed_directories: tuple[Path, ...] = ()
    provider: ProviderPreferences = field(default_factory=ProviderPreferences)
    prices: Mapping[str, Price] = field(default_factory=dict[str, Price])
    tool_search: tuple[ToolSearchMode, float] = ("auto", DEFAULT_SHARE)
    command_rules: tuple[str, ...] = ()  # `commandRules.allow`, as written
    profiles: Mapping[str, Profile] = field(default_factory=dict[str, Profile])
    registry: str | None = None  # `mcpRegistry`, when it is a registry's URL
    # `mcpServers` and `mcpToolPolicy` as written: mcp/config parses them when the configuration
    # is loaded, filling each launch's `${VAR}` from the environment then.
    mcp_servers: object = None
    mcp_tool_policy: object = None

    def unusable_user_file(self) -> ConfigProblem | None:
        """Why the user's own file could not be used at all (not JSON, not an object, unreadable)."""
        file = str(self.user_file)
        return next((p for p in self.problems if p.whole_file and p.file == file), None)

    def problem_with(self, key: str) -> ConfigProblem | None:
        """The problem said of the user's `key`, if any (a command that needs it refuses to go on)."""
        file = str(self.user_file)
        return next((p for p in self.problems if p.file == file and p.key == key), None)


@dataclass(frozen=True)
class SettingsDocument:
    """One settings file as read: where it is, its parsed document (None when missing or blank),
    or the problem that kept it from being read or parsed."""

    file: Path
    doc: object = None
    problem: ConfigProblem | None = None


def settings_from_documents(
    user: SettingsDocument, project: SettingsDocument, policy: ManagedPolicy
) -> Settings:
    """Both settings documents under the organisation's policy; every problem found, each once —
    the policy's first."""
    doc, path = user.doc, user.file
    problems = [*policy.problems, *([user.problem] if user.problem else [])]
    if doc is not None and not isinstance(doc, dict):
        problems.append(ConfigProblem(str(path), "(top level)", "expected a JSON object"))
        doc = None
    settings = _user_settings(doc or {}, path, policy)
    project_problems = project_settings_of(project)[1]
    return dataclasses.replace(settings, problems=(*problems, *settings.problems, *project_problems))


def _user_settings(doc: Mapping[str, object], path: Path, policy: ManagedPolicy) -> Settings:
    """The user's own document, each key parsed once, under the policy; its problems in order."""
    problems: list[ConfigProblem] = []

    def said(key: str, message: str) -> None:
        problems.append(ConfigProblem(str(path), key, message))

    network, hosts = keys.sandbox(doc, said)
    wanted = _Wanted(doc.get("autopilot") is True, network, hosts, keys.registry(doc, said))
    problems += _refused_by_policy(wanted, str(path), policy)
    provider, tool_search = keys.provider_preferences(doc, said), keys.tool_search(doc, said)
    prices, price_problems = parse_prices(doc.get("prices"))
    for key, message in price_problems:
        said(key, message)
    command_rules = keys.command_rule_texts(doc, said)
    profiles, profile_problems = parse_profiles(doc.get(PROFILES_KEY), file=str(path))
    return Settings(
        user_file=path,
        managed=policy,
        problems=(*problems, *profile_problems),
        autopilot=wanted.autopilot and policy.autopilot,
        sandbox_network=network and policy.allow_network,
        sandbox_hosts=tuple(host for host in hosts if policy.host_allowed(host)),
        allowed_directories=keys.allowed_directories(doc),
        provider=provider,
        prices=prices,
        tool_search=tool_search,
        command_rules=command_rules,
        profiles=profiles,
        registry=wanted.registry,
        mcp_servers=doc.get("mcpServers"),
        mcp_tool_policy=doc.get("mcpToolPolicy"),
    )


@dataclass(frozen=True)
class _Wanted:
    """What the user's settings ask for that the organisation's policy may refuse."""

    autopilot: bool
    network: bool
    hosts: tuple[str, ...]
    registry: str | None


def _refused_by_policy(wanted: _Wanted, file: str, policy: ManagedPolicy) -> list[ConfigProblem]:
    """What the user's settings ask for that the organisation's policy does not allow: each said
    once, and not applied."""
    if not policy.active:
        return []
    said: list[ConfigProblem] = []
    if wanted.autopilot and not policy.autopilot:
        said.append(ConfigProblem(file, "autopilot", policy.refusal("ignored", "it turns autopilot off")))
    if wanted.network and not policy.whole_network:
        why = policy.refusal("ignored", "it does not give the sandbox the whole network")
        said.append(ConfigProblem(file, "sandbox.network", why))
    if policy.registry is not None and wanted.registry is not None and wanted.registry != policy.registry:
        why = f"servers come from {policy.registry}"
        said.append(ConfigProblem(file, keys.REGISTRY_KEY, policy.refusal("ignored", why)))
    for host in wanted.hosts:
        if not policy.host_allowed(host):
            why = policy.refusal(f"{host!r} ignored", "not among its allowedHosts")
            said.append(ConfigProblem(file, "sandbox.network", why))
    return said


def project_settings_of(project: SettingsDocument) -> tuple[dict[str, object], list[ConfigProblem]]:
    if project.problem is not None:
        return {}, [project.problem]
    return check_project_settings(project.doc, file=str(project.file))


def check_project_settings(doc: object, *, file: str) -> tuple[dict[str, object], list[ConfigProblem]]:
    """A repository's `.levelcode/settings.json`: the keys it may set, and a problem per key it may not."""
    if is_absent(doc):
        return {}, []
    if not isinstance(doc, Mapping):
        return {}, [ConfigProblem(file, "(top level)", "expected a JSON object")]
    allowed = {str(key): value for key, value in doc.items() if key not in USER_ONLY_KEYS}
    problems = [ignored_key(file, str(key)) for key in doc if key in USER_ONLY_KEYS]
    return allowed, problems


def ignored_key(file: str, key: str) -> ConfigProblem:
    return ConfigProblem(file, key, "ignored: only your user settings may set this")
