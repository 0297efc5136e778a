"""A server's log notifications (`notifications/message`): written to its log file at the level the
user set for it (`logLevel`, default info), one line each; its error-level messages are also kept,
deduplicated and bounded, until a view has shown them once (`/mcp`).

The data is the server's: written as JSON, so no control character reaches the file raw, and
never raised as anything — a broken log costs only the log.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

from levelcode.mcp.config.client_entry import DEFAULT_LOG_LEVEL, at_least
from levelcode.platform.private_files import append_private, private_folder

MAX_KEPT_ERRORS = 10
MAX_ERROR_CHARS = 300


class ServerLog:
    def __init__(self, path: Path | None, level: str = DEFAULT_LOG_LEVEL) -> None:
        self.path = path
        self.level = level
        self._file: BinaryIO | None = None
        self._errors: deque[str] = deque(maxlen=MAX_KEPT_ERRORS)
        self._said: set[str] = set()

    def record(self, params: Mapping[str, object]) -> None:
        level = params.get("level")
        if not at_least(level, self.level):
            return
        data = params.get("data")
        logger = params.get("logger")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        source = f"{str(logger)[:80]}: " if isinstance(logger, str) and logger else ""
        self._write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [mcp {str(level)[:12]}] {source}", text)
        if at_least(level, "error"):
            line = f"{level}: {source}{text}"[:MAX_ERROR_CHARS]
            if line not in self._said:
                self._said.add(line)
                self._errors.append(line)

    def take_errors(self) -> tuple[str, ...]:
        """The error-level messages not shown yet; each is handed out once."""
        taken = tuple(self._errors)
        self._errors.clear()
        return taken

    def _write(self, prefix: str, text: str) -> None:
        if self.path is None:
            return
        with contextlib.suppress(OSError):
            if self._file is None:
                private_folder(self.path.parent)
                self._file = append_private(self.path)
            self._file.write((prefix + json.dumps(text, ensure_ascii=False)[1:-1] + "\n").encode())
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
