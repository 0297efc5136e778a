"""Settings made from a user's document in memory, parsed the way platform/settings_files.py
parses the files it reads."""

from __future__ import annotations

from pathlib import Path

from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy
from levelcode.policy.settings import Settings, SettingsDocument, settings_from_documents

USER_FILE = "/home/me/.config/levelcode/settings.json"


def settings_of(doc: object, policy: ManagedPolicy = NO_POLICY, *, file: str = USER_FILE) -> Settings:
    user = SettingsDocument(Path(file), doc)
    project = SettingsDocument(Path("/work/repo/.levelcode/settings.json"))
    return settings_from_documents(user, project, policy)
