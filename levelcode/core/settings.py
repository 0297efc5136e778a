"""The user's own settings file (user tier) and a repository's `.levelcode/settings.json`, read once
per session, with the keys a repository may never set.

Read leniently: a broken file is reported and treated as empty, so that `mcp list` and the like
still show the rest; a session (`levelcode`, `run`) refuses to start on a user file it cannot use
(`unusable_user_file`), rather than run without the user's provider, servers and policy.
Security-relevant keys (`mcpServers`, `mcpToolPolicy`, `autopilot`, `sandbox`, `provider`,
`baseUrl`, `apiKey`, `commandRules`, `mcpRegistry`), and `prices` and `profiles`, come from the
user's file only; a repository's file that sets one is reported and the key ignored. Above both stands the
organisation's policy (core/managed_policy.py), read with them: what it turns off, the user's
settings cannot turn on. Never writes (settings_store.py does).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.core import paths
from levelcode.core.config_files import is_absent, read_json_file
from levelcode.core.errors import ConfigProblem
from levelcode.core.managed_file import read_managed_policy
from levelcode.core.managed_policy import NO_POLICY, ManagedPolicy, overridden_settings
from levelcode.core.network_hosts import host_entries

PROJECT_SETTINGS_FILE = Path(".levelcode") / "settings.json"
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
    user_file: Path = field(default_factory=paths.user_settings_path)
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
        raw = self.user.get("allowedDirectories")
        if not isinstance(raw, list):
            return ()
        return tuple(Path(item).expanduser() for item in raw if isinstance(item, str) and item)


def load_settings(
    workspace: Path, user_file: Path | None = None, *, managed: ManagedPolicy | None = None
) -> Settings:
    """Both settings files, each read once, under the organisation's policy (`managed`: as read
    already; else read here, once per process); every problem found, each once — the policy's
    first."""
    policy = managed if managed is not None else read_managed_policy()
    path = user_file or paths.user_settings_path()
    doc, problem = read_json_file(path)
    problems = [*policy.problems, *([problem] if problem else [])]
    if doc is not None and not isinstance(doc, dict):
        problems.append(ConfigProblem(str(path), "(top level)", "expected a JSON object"))
        doc = None
    problems += _sandbox_problems(doc, path)
    problems += overridden_settings(doc or {}, str(path), policy)
    project, project_problems = load_project_settings(workspace)
    return Settings(dict(doc or {}), project, tuple(problems + project_problems), path, policy)


def load_project_settings(workspace: Path) -> tuple[dict[str, object], list[ConfigProblem]]:
    path = workspace / PROJECT_SETTINGS_FILE
    doc, problem = read_json_file(path)
    if problem is not None:
        return {}, [problem]
    return check_project_settings(doc, file=str(path))


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
