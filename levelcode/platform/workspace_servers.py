"""The servers the user turned off in one workspace (`levelcode mcp disable NAME --here`, `/mcp
disable NAME`), kept per repository (platform/workspace_identity.py), so a `git worktree add` of the
same repository keeps them off and another repository does not.

The user's own state: a 0600 file under the state dir, written under a lock, atomically. It can
only turn servers off — a planted `.git` that borrowed another repository's identity would gain
nothing but servers not started — and never turns on what an entry or a profile turned off.
"""

from __future__ import annotations

from pathlib import Path

from levelcode.core.errors import ConfigProblem
from levelcode.platform import paths
from levelcode.platform.json_store import JsonDoc, UnreadableFile, read_json_object, update_json
from levelcode.platform.workspace_identity import workspace_identity

KEY = "workspaces"


def servers_off(workspace: Path, store: Path | None = None) -> frozenset[str]:
    """The servers turned off for `workspace`'s repository (none when the file cannot be read)."""
    try:
        doc = read_json_object(store or paths.workspace_servers_path())
    except UnreadableFile:
        return frozenset()
    entry = _entry(doc, workspace_identity(workspace))
    names = entry.get("off") if entry is not None else None
    return (
        frozenset(name for name in names if isinstance(name, str)) if isinstance(names, list) else frozenset()
    )


def turn_off(workspace: Path, server: str, off: bool, store: Path | None = None) -> bool:
    """Turn `server` off (or back on) for `workspace`'s repository; whether anything changed.
    Raises UnreadableFile when the file holds something else than this store (left as it is)."""
    identity = workspace_identity(workspace)
    path = store or paths.workspace_servers_path()
    changed: list[bool] = []

    def change(doc: JsonDoc) -> None:
        workspaces = doc.setdefault(KEY, {})
        if not isinstance(workspaces, dict):
            raise UnreadableFile(ConfigProblem(str(path), "(file)", f'"{KEY}" is not an object'))
        entry = workspaces.setdefault(identity, {})
        names = [name for name in entry.get("off", []) if isinstance(name, str)]
        wanted = sorted({*names, server}) if off else [name for name in names if name != server]
        changed.append(wanted != names)
        entry["off"], entry["seen"] = wanted, str(workspace)
        if not wanted:
            del workspaces[identity]

    update_json(path, change)
    return changed[0]


def _entry(doc: JsonDoc, identity: str) -> dict[str, object] | None:
    workspaces = doc.get(KEY)
    entry = workspaces.get(identity) if isinstance(workspaces, dict) else None
    return entry if isinstance(entry, dict) else None
