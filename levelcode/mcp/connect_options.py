"""How LevelCode connects to its servers: limits, timeouts, where logs and private folders go, what
a repository's server must never receive, and who answers a server's requests and sign-ins.

Plain data, shared by the transport factory, the connection and the hub.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from levelcode.mcp.protocol.handshake import DEFAULT_HINTED_PROBE_SECONDS
from levelcode.mcp.protocol.session import ClientFeatures
from levelcode.mcp.protocol.transport import DEFAULT_MAX_MESSAGE_BYTES, AuthHook

DEFAULT_STARTUP_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 120.0


@dataclass(frozen=True)
class ConnectOptions:
    workspace: Path
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    hinted_probe: float = DEFAULT_HINTED_PROBE_SECONDS
    log_dir: Path | None = None
    servers_dir: Path | None = None  # where user-tier servers' private directories go (state dir)
    provider_key_values: frozenset[str] = frozenset()  # e.g. the settings' apiKey: never to a repo
    features: ClientFeatures | None = None  # what servers may ask of us, and who answers
    authorize: AuthHook | None = None  # a remote server's 401/403 goes here (may ask the user)
