"""The shape of the settings: the user's own settings file (user tier) and a repository's
`.levelcode/settings.json`, parsed from their documents into one `Settings`, with the keys a
repository may never set.

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

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import is_absent
from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy, overridden_settings
from levelcode.policy.network_hosts import host_entries

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


@dataclass(frozen=True)
class Settings:
    user: Mapping[str, object] = field(default_factory=dict[str, object])
    project: Mapping[str, object] = field(default_factory=dict[str, object])
    problems: tuple[ConfigProblem, ...] = ()
    user_file: Path = field(kw_only=True)  # where the user's own settings are (read or not)
    managed: ManagedPolicy = NO_POLICY  # the organisation's policy, read with them

    @property
    def autopilot(self) -> bool:
        return self.user.get("autopilot") is True and self.managed.autopilot

    @property
    def sandbox_network(self) -> bool:
        """`"sandbox": {"network": true}` in the user's own settings lets commands use the network
        (unless the organisation's policy turns it off)."""
        sandbox = self.user.get("sandbox")
        wanted = isinstance(sandbox, Mapping) and sandbox.get("network") is True
        return wanted and self.managed.allow_network

    def unusable_user_file(self) -> ConfigProblem | None:
        """Why the user's own file could not be used at all (not JSON, not an object, unreadable)."""
        file = str(self.user_file)
        return next((p for p in self.problems if p.whole_file and p.file == file), None)

    @property
    def sandbox_hosts(self) -> tuple[str, ...]:
        """`"sandbox": {"network": ["host", …]}` in the user's own settings: the hosts commands
        reach through the egress filter (the valid entries; the others are among `problems`)."""
        sandbox = self.user.get("sandbox")
        listed = sandbox.get("network") if isinstance(sandbox, Mapping) else None
        hosts = host_entries(listed, lambda _problem: None) if isinstance(listed, list) else ()
        return tuple(host for host in hosts if self.managed.host_allowed(host))

    def allowed_directories(self) -> tuple[Path, ...]:
        """`allowedDirectories` as written: a leading `~` is the caller's to expand, since that
        reads the environment."""
        raw = self.user.get("allowedDirectories")
        if not isinstance(raw, list):
            return ()
        return tuple(Path(item) for item in raw if isinstance(item, str) and item)


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
    problems += _sandbox_problems(doc, path)
    problems += overridden_settings(doc or {}, str(path), policy)
    project_settings, project_problems = project_settings_of(project)
    return Settings(
        dict(doc or {}), project_settings, tuple(problems + project_problems), user_file=path, managed=policy
    )


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


def _sandbox_problems(doc: object, path: Path) -> list[ConfigProblem]:
    if not isinstance(doc, Mapping) or "sandbox" not in doc:
        return []
    sandbox = doc["sandbox"]
    if not isinstance(sandbox, Mapping):
        return [ConfigProblem(str(path), "sandbox", 'expected an object such as {"network": true}')]
    problems = [
        ConfigProblem(str(path), f"sandbox.{key}", "unknown key, ignored")
        for key in sandbox
        if key != "network"
    ]
    network = sandbox.get("network", False)
    if isinstance(network, list):
        host_entries(network, lambda text: problems.append(ConfigProblem(str(path), "sandbox.network", text)))
    elif not isinstance(network, bool):
        problems.append(
            ConfigProblem(
                str(path), "sandbox.network", "expected true, false or a list of hosts; the network stays off"
            )
        )
    return problems
