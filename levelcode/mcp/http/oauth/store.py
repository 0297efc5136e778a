"""Where sign-ins are kept: tokens and registered clients, per server, resource and authorization
server (issuer), in the system keyring where one works (a Secret Service such as GNOME Keyring or
KWallet, the macOS Keychain, Windows' Credential Locker), else — the stated fallback — in a 0600
file in a 0700 folder under the state dir.

Keyed by issuer: a server that moves to another authorization server signs in there afresh, and
the first one's tokens are kept apart (never sent to the second; found again if it moves back).
The file always holds the index (which sign-ins exist, where each lives, and which issuer each
server uses now), so a remote server that never signed in costs a file read, not a keyring
start-up. Never logs a record; `where` names where a record lives, never what it holds.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from levelcode.platform.json_store import JsonDoc, UnreadableFile, read_json_object, update_json
from levelcode.platform.private_files import private_folder

KEYRING_SERVICE = "levelcode-mcp-oauth"
STORE_FILE = "oauth-credentials.json"
Record = dict[str, Any]


def store_key(server: str, resource: str) -> str:
    """A sign-in belongs to one server name *and* its URL: change the URL and it is not reused."""
    return f"{server}|{resource}"


def issuer_key(base: str, issuer: str) -> str:
    """The record of one server's sign-in at one authorization server."""
    return f"{base}|{issuer}"


class CredentialStore:
    def __init__(self, folder: Path | None, *, use_keyring: bool | None = None) -> None:
        """`folder` None: kept in memory only (one process). `use_keyring` None: the
        LEVELCODE_KEYRING variable decides ("off" never uses one), else try it."""
        self.folder = folder
        self.path = folder / STORE_FILE if folder is not None else None
        self._memory: dict[str, Record] = {}
        self._memory_current: dict[str, str] = {}
        self.use_keyring = (
            use_keyring if use_keyring is not None else os.environ.get("LEVELCODE_KEYRING") != "off"
        )

    def load(self, key: str) -> Record | None:
        if self.path is None:
            return self._memory.get(key)
        entry = self._index().get(key)
        if not isinstance(entry, Mapping):
            return None
        if entry.get("where") == "keyring":
            return _keyring_get(key)
        record = entry.get("record")
        return dict(record) if isinstance(record, Mapping) else None

    def save(self, key: str, record: Record) -> str:
        """Keep it; returns where: "keyring", "file" or "memory"."""
        if self.path is None:
            self._memory[key] = record
            return "memory"
        where = "keyring" if self.use_keyring and _keyring_set(key, record) else "file"
        entry: JsonDoc = {"where": "keyring"} if where == "keyring" else {"where": "file", "record": record}
        self._update(lambda servers: servers.__setitem__(key, entry))
        return where

    def delete(self, key: str) -> bool:
        if self.path is None:
            return self._memory.pop(key, None) is not None
        entry = self._index().get(key)
        if entry is None:
            return False
        if isinstance(entry, Mapping) and entry.get("where") == "keyring":
            _keyring_delete(key)
        self._update(lambda servers: servers.pop(key, None))
        return True

    def where_current(self, base: str) -> str | None:
        """Where the sign-in the server `base` (store_key) uses now is kept."""
        issuer = self.current_issuer(base)
        return self.where(issuer_key(base, issuer)) if issuer is not None else self.where(base)

    def current_issuer(self, base: str) -> str | None:
        """The issuer whose record the server `base` (store_key) uses now, if any was kept."""
        if self.path is None:
            return self._memory_current.get(base)
        try:
            current = read_json_object(self.path).get("current")
        except (UnreadableFile, OSError):
            return None
        issuer = current.get(base) if isinstance(current, Mapping) else None
        return issuer if isinstance(issuer, str) else None

    def set_current_issuer(self, base: str, issuer: str) -> None:
        if self.path is None:
            self._memory_current[base] = issuer
            return
        private_folder(self.path.parent)

        def apply(doc: JsonDoc) -> None:
            current = doc.get("current")
            if not isinstance(current, dict):
                current = doc["current"] = {}
            current[base] = issuer

        update_json(self.path, apply, mode=0o600)

    def keys_for(self, server: str) -> list[str]:
        names = self._memory if self.path is None else self._index()
        return [key for key in names if key.split("|", 1)[0] == server]

    def where(self, key: str) -> str | None:
        if self.path is None:
            return "memory" if key in self._memory else None
        entry = self._index().get(key)
        return str(entry.get("where")) if isinstance(entry, Mapping) else None

    def _index(self) -> Mapping[str, object]:
        assert self.path is not None
        try:
            servers = read_json_object(self.path).get("servers")
        except (UnreadableFile, OSError):
            return {}
        return servers if isinstance(servers, Mapping) else {}

    def _update(self, change: Any) -> None:
        assert self.path is not None
        private_folder(self.path.parent)

        def apply(doc: JsonDoc) -> None:
            servers = doc.get("servers")
            if not isinstance(servers, dict):
                servers = doc["servers"] = {}
            change(servers)

        update_json(self.path, apply, mode=0o600)


def _keyring() -> Any:
    """The system keyring, or None where none works (no Secret Service, a headless box)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None
    return backend


def _keyring_set(key: str, record: Record) -> bool:
    backend = _keyring()
    if backend is None:
        return False
    try:
        backend.set_password(KEYRING_SERVICE, key, json.dumps(record))
    except Exception:  # a locked or broken keyring: the file is the fallback, not a failure
        return False
    return True


def _keyring_get(key: str) -> Record | None:
    backend = _keyring()
    if backend is None:
        return None
    with contextlib.suppress(Exception):
        text = backend.get_password(KEYRING_SERVICE, key)
        record = json.loads(text) if text else None
        return record if isinstance(record, dict) else None
    return None


def _keyring_delete(key: str) -> None:
    backend = _keyring()
    if backend is not None:
        with contextlib.suppress(Exception):
            backend.delete_password(KEYRING_SERVICE, key)
