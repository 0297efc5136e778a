"""Where LevelCode keeps user-tier files. `LEVELCODE_HOME`, when set, holds all of them.

Layout under `LEVELCODE_HOME`: `settings.json`, `state/` (trust store, protocol memory),
`state/logs/` (per-server stderr logs), `state/results/` (full tool results that were cut).
Without it: the platform's config dir for settings, its state dir for the rest.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "levelcode"
HOME_ENV = "LEVELCODE_HOME"


def _home_override() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    home = _home_override()
    if home is not None:
        return home
    import platformdirs

    return platformdirs.user_config_path(APP_NAME)


def state_dir() -> Path:
    home = _home_override()
    if home is not None:
        return home / "state"
    import platformdirs

    return platformdirs.user_state_path(APP_NAME)


def user_settings_path() -> Path:
    return config_dir() / "settings.json"


def trust_store_path() -> Path:
    return state_dir() / "trust.json"


def logs_dir() -> Path:
    return state_dir() / "logs"


def results_dir() -> Path:
    return state_dir() / "results"


def history_path() -> Path:
    return state_dir() / "history"
