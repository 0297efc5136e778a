"""Reading the settings files, each once per session: the user's own (user tier), a repository's
`.levelcode/settings.json` and, with them, the organisation's policy; what they say is parsed by
policy/settings.py. Reads only, never writes (settings_store.py does).
"""

from __future__ import annotations

from pathlib import Path

from levelcode.platform import paths
from levelcode.platform.config_files import read_json_file
from levelcode.platform.managed_file import read_managed_policy
from levelcode.policy.managed_policy import ManagedPolicy
from levelcode.policy.settings import Settings, SettingsDocument, settings_from_documents

PROJECT_SETTINGS_FILE = Path(".levelcode") / "settings.json"


def load_settings(
    workspace: Path, user_file: Path | None = None, *, managed: ManagedPolicy | None = None
) -> Settings:
    """Both settings files, each read once, under the organisation's policy (`managed`: as read
    already; else read here, once per process); every problem found, each once — the policy's
    first."""
    policy = managed if managed is not None else read_managed_policy()
    user = read_settings_document(user_file or paths.user_settings_path())
    project = read_settings_document(workspace / PROJECT_SETTINGS_FILE)
    return settings_from_documents(user, project, policy)


def read_settings_document(path: Path) -> SettingsDocument:
    doc, problem = read_json_file(path)
    return SettingsDocument(path, doc, problem)
