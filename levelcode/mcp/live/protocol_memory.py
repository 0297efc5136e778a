"""Which protocol era each server spoke last time, keyed by launch fingerprint (a hint only).

With the hint, a connection starts the right handshake at once instead of probing. A lost or
corrupt file costs one probe, never correctness, so it is read leniently and written atomically.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from levelcode.mcp.protocol.handshake import Era
from levelcode.platform.private_files import private_folder

_ERAS: tuple[Era, ...] = ("legacy", "modern")
_MAX_ENTRIES = 500


class ProtocolMemory:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._eras: dict[str, Era] = self._load()

    def get(self, fingerprint: str) -> Era | None:
        return self._eras.get(fingerprint)

    def remember(self, fingerprint: str, era: Era) -> None:
        if self._eras.get(fingerprint) == era:
            return
        self._eras[fingerprint] = era
        while len(self._eras) > _MAX_ENTRIES:
            self._eras.pop(next(iter(self._eras)))
        self._save()

    def _load(self) -> dict[str, Era]:
        if self.path is None:
            return {}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict):
            return {}
        return {str(k): v for k, v in doc.items() if v in _ERAS}

    def _save(self) -> None:
        if self.path is None:
            return
        with contextlib.suppress(OSError):
            private_folder(self.path.parent)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".protocols-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self._eras, out)
            os.replace(temp, self.path)
