"""Where LevelCode keeps user-tier files. `LEVELCODE_HOME`, when set, holds all of them.

Layout under `LEVELCODE_HOME`: `settings.json`, `state/` (trust store, protocol memory),
`state/logs/` (per-server stderr logs), `state/results/` (full tool results that were cut),
`state/servers/<name>/` (the private working directory of each of the user's own servers),
`state/sessions/<workspace>/` (saved sessions, agent/session_store.py).
Without it: the platform's config dir for settings, its state dir for the rest.

The organisation's policy file is the one path no environment variable moves (not even
`LEVELCODE_HOME`): whoever sets LevelCode's environment — the user's shell, a repository's
`.envrc` loaded by direnv, a CI job's definition — could otherwise point it at a policy of their own.
"""

from __future__ import annotations

import os
import sys
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


MANAGED_SETTINGS_NAME = "managed-settings.json"


def managed_settings_path(platform: str = sys.platform) -> Path:
    """Where a platform team puts the organisation's policy (policy/managed_policy.py): a folder only
    an administrator can write. Windows: Program Files, not ProgramData, where any user may create
    the folder before the administrator does."""
    if platform == "darwin":
        return Path("/Library/Application Support/LevelCode") / MANAGED_SETTINGS_NAME
    if platform.startswith(("win", "cygwin")):
        return Path("C:\\Program Files\\LevelCode\\" + MANAGED_SETTINGS_NAME)
    return Path("/etc/levelcode") / MANAGED_SETTINGS_NAME


def user_settings_path() -> Path:
    return config_dir() / "settings.json"


def trust_store_path() -> Path:
    return state_dir() / "trust.json"


def workspace_servers_path() -> Path:
    """The servers the user turned off per repository (platform/workspace_servers.py)."""
    return state_dir() / "workspace-servers.json"


def logs_dir() -> Path:
    return state_dir() / "logs"


def results_dir() -> Path:
    return state_dir() / "results"


def server_log_path(server: str) -> Path:
    """A stdio server's stderr log: `logs/NAME.log`, its name made safe for a file name."""
    return logs_dir() / server_log_name(server)


def server_log_name(server: str) -> str:
    return file_stem(server, fallback="server") + ".log"


def history_path() -> Path:
    return state_dir() / "history"


def servers_dir() -> Path:
    return state_dir() / "servers"


def server_dir(name: str, root: Path | None = None) -> Path:
    """The private directory a user-tier server without `cwd` starts in: never the workspace, so a
    repository cannot plant files where the server looks first (modules, node_modules, .npmrc)."""
    stem = file_stem(name, fallback="server")
    if stem != name:  # two names that sanitize alike must not share a directory
        import hashlib  # here: paths is on the way to the first server spawn, hashlib is 3 ms

        stem += "-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return (root or servers_dir()) / stem


def file_stem(text: str, *, fallback: str) -> str:
    """`text` as a safe file name: letters, digits, `-_.`, at most 80 characters, no leading dot."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:80]
    return safe.strip(".") or fallback
