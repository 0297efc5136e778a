"""Writing the user's settings.json (user tier only): atomic, locked, keeping everything else.

LevelCode never writes a repository's files, and never overwrites a settings file it cannot
parse: a hand edit with a typo is reported, with the file named, instead of being replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from levelcode.core.errors import ConfigError
from levelcode.platform import paths
from levelcode.platform.json_store import NOT_OVERWRITTEN, JsonDoc, UnreadableFile, update_json


def update_user_settings(change: Callable[[JsonDoc], None], path: Path | None = None) -> Path:
    target = path or paths.user_settings_path()
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o600
    try:
        update_json(target, change, mode=mode)
    except UnreadableFile as exc:
        raise ConfigError(
            f"{exc.problem}; {NOT_OVERWRITTEN}",
            origin=str(target),
        ) from exc
    return target
