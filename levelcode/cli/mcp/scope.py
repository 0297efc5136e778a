"""Which file `levelcode mcp add | add-json | remove` write, by `-s/--scope` (Claude Code's words),
and the locked, atomic edit of it that keeps everything else in the file.

  user     your settings.json (the default): your own servers, started without asking, everywhere
  local    your file for this workspace alone, outside it (mcp/config/local_servers.py): your own
           servers, started without asking, only here (Claude Code's default)
  project  the workspace's .mcp.json, a repository's file: its servers ask before they start

Never writes a file it cannot parse, and writes a repository's file only when it is a plain file
(a symbolic link there could point at your settings, which would then be copied into the
repository); never leaves a lock file in the repository.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.core.errors import ConfigError
from levelcode.mcp.config.edit import USER_SETTINGS, ServerExists, ServerNotFound, ServersDoc, user_servers
from levelcode.mcp.config.files import local_servers_path
from levelcode.mcp.config.local_servers import FOLDER_KEY, WHERE, WORKSPACE_KEY
from levelcode.platform import paths
from levelcode.platform.json_store import (
    NOT_OVERWRITTEN,
    JsonDoc,
    UnreadableFile,
    read_json_object,
    write_atomically,
)
from levelcode.platform.settings_store import update_user_settings
from levelcode.platform.workspace_identity import describe_identity, workspace_identity

PROJECT_FILE = Path(".mcp.json")
DEFAULT_SCOPE = "user"
SCOPES = ("local", "project", "user")  # in Claude Code's order, narrowest first
SCOPE_WORDS = {
    "local": "yours, this workspace only",
    "project": "the repository's, shared; asks before it starts",
    "user": "yours, every workspace",
}


@dataclass(frozen=True)
class ServersFile:
    path: Path
    doc: ServersDoc
    scope: str = DEFAULT_SCOPE
    stamp: Mapping[str, str] = field(default_factory=dict[str, str])  # keys a new file starts with

    @property
    def repository(self) -> bool:
        return self.doc.tier == "workspace"


def servers_file(scope: str | None, workspace: Path) -> ServersFile:
    if scope == "project":
        path = workspace / PROJECT_FILE
        return ServersFile(path, ServersDoc("workspace", str(path)), "project")
    if scope == "local":
        identity = workspace_identity(workspace)
        stamp = {WORKSPACE_KEY: identity, FOLDER_KEY: str(workspace)}
        path = local_servers_path(workspace, identity)
        return ServersFile(path, ServersDoc("local", WHERE), "local", stamp)
    return ServersFile(paths.user_settings_path(), USER_SETTINGS)


def scopes_naming(name: str, workspace: Path) -> list[ServersFile]:
    """The scopes' files whose servers include `name` (one that cannot be read: not among them)."""
    found = []
    for scope in SCOPES:
        target = servers_file(scope, workspace)
        try:
            if name in user_servers(read_json_object(target.path), target.doc):
                found.append(target)
        except (UnreadableFile, ConfigError):
            continue
    return found


def scope_line(target: ServersFile, workspace: Path, *, typed: str | None) -> str:
    """`  scope:   local — yours, this workspace only (every worktree of the repository …)`."""
    line = f"  scope:   {target.scope} — {SCOPE_WORDS[target.scope]}"
    if target.scope == "local":
        return f"{line} ({describe_identity(workspace_identity(workspace))})"
    if target.scope == DEFAULT_SCOPE and typed is None:
        return f"{line} (the default; Claude Code's is local: -s local for this workspace only)"
    return line


class _Unchanged(Exception):
    """The edit found nothing to change: the file is left exactly as it is."""


def edit_servers_file(target: ServersFile, edit: Callable[[JsonDoc], JsonDoc | None]) -> bool:
    """Apply a pure edit to the file (None from `edit`: nothing to change); whether it was written."""

    def change(doc: JsonDoc) -> None:
        new = edit(doc)
        if new is None:
            raise _Unchanged
        doc.clear()
        doc.update({**target.stamp, **new})

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
