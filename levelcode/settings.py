"""The user's own settings file (user tier) and the few keys a repository's settings may add.

Read leniently: a broken file is reported and treated as empty, so LevelCode still starts.
Security-relevant keys (`autopilot`, `sandbox`, `provider`, `baseUrl`, `apiKey`, MCP servers and
policy) come from the user's file only; see mcp/config.py for the list a repository may not set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode import paths
from levelcode.errors import ConfigProblem
from levelcode.mcp.config_files import load_project_settings, read_json_file


@dataclass(frozen=True)
class Settings:
    user: Mapping[str, object] = field(default_factory=dict[str, object])
    project: Mapping[str, object] = field(default_factory=dict[str, object])
    problems: tuple[ConfigProblem, ...] = ()

    @property
    def autopilot(self) -> bool:
        return self.user.get("autopilot") is True

    @property
    def sandbox_network(self) -> bool:
        """`"sandbox": {"network": true}` in the user's own settings lets commands use the network."""
        sandbox = self.user.get("sandbox")
        return isinstance(sandbox, Mapping) and sandbox.get("network") is True

    def allowed_directories(self) -> tuple[Path, ...]:
        raw = self.user.get("allowedDirectories")
        if not isinstance(raw, list):
            return ()
        return tuple(Path(item).expanduser() for item in raw if isinstance(item, str) and item)


def load_settings(workspace: Path) -> Settings:
    path = paths.user_settings_path()
    doc, problem = read_json_file(path)
    problems = [problem] if problem else []
    if doc is not None and not isinstance(doc, dict):
        problems.append(ConfigProblem(str(path), "(top level)", "expected a JSON object"))
        doc = None
    problems += _sandbox_problems(doc, path)
    project, project_problems = load_project_settings(workspace)
    return Settings(dict(doc or {}), project, tuple(problems + project_problems))


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
    if "network" in sandbox and not isinstance(sandbox["network"], bool):
        problems.append(
            ConfigProblem(str(path), "sandbox.network", "expected true or false; the network stays off")
        )
    return problems
