"""Which file `levelcode mcp add | add-json | remove` write, by `-s/--scope` (Claude Code's words),
and the locked, atomic edit of it that keeps everything else in the file.

  user     your settings.json (the default): your own servers, started without asking
  local    the same file: LevelCode keeps no servers of yours for one workspace only
  project  the workspace's .mcp.json, a repository's file: its servers ask before they start

Never writes a file it cannot parse, and writes a repository's file only when it is a plain file
(a symbolic link there could point at your settings, which would then be copied into the
repository); never leaves a lock file in the repository.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from levelcode.core import paths
from levelcode.core.errors import ConfigError
from levelcode.core.json_store import (
    NOT_OVERWRITTEN,
    JsonDoc,
    UnreadableFile,
    read_json_object,
    write_atomically,
)
from levelcode.core.settings_store import update_user_settings
from levelcode.mcp.config.edit import USER_SETTINGS, ServerExists, ServerNotFound, ServersDoc

PROJECT_FILE = Path(".mcp.json")
LOCAL_NOTE = (
    "note: -s local (in Claude Code: this project only, and only for you) means your own settings",
    "here: LevelCode keeps no servers of yours for one workspace, so this one is in every workspace.",
    "For this workspace alone: -s project (its .mcp.json, which asks before the server starts).",
)


@dataclass(frozen=True)
class ServersFile:
    path: Path
    doc: ServersDoc

    @property
    def repository(self) -> bool:
        return self.doc.tier == "workspace"


def servers_file(scope: str | None, workspace: Path) -> ServersFile:
    if scope == "project":
        path = workspace / PROJECT_FILE
        return ServersFile(path, ServersDoc("workspace", str(path)))
    return ServersFile(paths.user_settings_path(), USER_SETTINGS)


class _Unchanged(Exception):
    """The edit found nothing to change: the file is left exactly as it is."""


def edit_servers_file(target: ServersFile, edit: Callable[[JsonDoc], JsonDoc | None]) -> bool:
    """Apply a pure edit to the file (None from `edit`: nothing to change); whether it was written."""

    def change(doc: JsonDoc) -> None:
        new = edit(doc)
        if new is None:
            raise _Unchanged
        doc.clear()
        doc.update(new)

    try:
        if target.repository:
            _update_repository_file(target.path, change)
        else:
            update_user_settings(change, target.path)
    except _Unchanged:
        return False
    except ConfigError as exc:
        if exc.origin is not None or isinstance(exc, ServerExists | ServerNotFound):
            raise
        raise ConfigError(f"{target.path}: {exc}", origin=str(target.path)) from exc
    return True


def _update_repository_file(path: Path, change: Callable[[JsonDoc], None]) -> None:
    """Read, change, write atomically with the mode it had (0644, as a shared file, when new)."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ConfigError(
            f"{path} is not a plain file (a symbolic link, say); LevelCode writes a repository's "
            "file only when it is one",
            origin=str(path),
        )
    try:
        doc = read_json_object(path)
    except UnreadableFile as exc:
        raise ConfigError(f"{exc.problem}; {NOT_OVERWRITTEN}", origin=str(path)) from exc
    change(doc)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    write_atomically(path, doc, mode=mode)
