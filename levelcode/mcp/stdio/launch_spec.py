"""What one stdio server runs, resolved: plain data, light to import (no event loop, no I/O), so a
server can be spawned before the rest of LevelCode is loaded (mcp/live/early_start.py).

Made once per start of a server, by mcp/launch.py; never resolves, reads or spawns anything."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.mcp.protocol.limits import DEFAULT_MAX_MESSAGE_BYTES

if TYPE_CHECKING:
    from levelcode.sandbox.policy import SandboxPolicy


@dataclass(frozen=True)
class StdioLaunch:
    """Everything needed to start one server, resolved: argv, environment, directory."""

    server: str
    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    log_path: Path | None = None
    # The sandbox it runs in (argv and env already wrap it): the transport moves away the git
    # control entries it plants in the folders it may write, while it runs and when it ends.
    sandbox: SandboxPolicy | None = None
