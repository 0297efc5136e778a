"""The debug log: `LEVELCODE_DEBUG=1` writes what LevelCode does to state/logs/debug.log.

Only LevelCode's own loggers write there (never the SDKs', whose request dumps would carry tool
arguments), and every event it logs is the display-safe one: MCP argument values are masked
before they reach an event (G4).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict

from levelcode.agent.events import AgentEvent, EventSink, TextDelta
from levelcode.platform import paths
from levelcode.platform.private_files import append_private_text

ENV = "LEVELCODE_DEBUG"
log = logging.getLogger("levelcode")


def debug_enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0", "false", "no")


def configure_debug_log() -> None:
    if not debug_enabled() or log.handlers:
        return
    handler = logging.StreamHandler(append_private_text(paths.logs_dir() / "debug.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False


class DebugSink:
    """Passes events on, and logs each one (text deltas only by size)."""

    def __init__(self, inner: EventSink) -> None:
        self.inner = inner

    def emit(self, event: AgentEvent) -> None:
        self.inner.emit(event)
        if isinstance(event, TextDelta):
            log.debug("text %d chars", len(event.text))
        else:
            log.debug(
                "%s %s", type(event).__name__, json.dumps(asdict(event), default=str, ensure_ascii=False)
            )
