"""How LevelCode connects to its servers: limits, timeouts, where logs and private folders go, what
a repository's server must never receive, which servers run in the sandbox, and who answers a
server's requests and sign-ins.

Plain data, shared by the transport factory, the connection and the hub.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.protocol.handshake import DEFAULT_HINTED_PROBE_SECONDS
from levelcode.mcp.protocol.limits import DEFAULT_MAX_MESSAGE_BYTES
from levelcode.mcp.protocol.session import ClientFeatures
from levelcode.mcp.protocol.sign_in import SignIn
from levelcode.mcp.protocol.transport import AuthHook

if TYPE_CHECKING:
    from levelcode.mcp.gates.server_box import SandboxChoice
    from levelcode.sandbox.confinement import Confinement

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
    authorize: AuthHook | None = None  # instead of OAuth: a remote server's 401/403 goes here
    sign_in: SignIn = field(
        default_factory=SignIn
    )  # OAuth for remote servers: where sign-ins are kept, who is asked
    # How the user approved each repository server: in the sandbox ("own", "workspace"); absent:
    # unconfined (gates/server_box.py decides, with the server's own entry).
    sandbox_choices: Mapping[str, SandboxChoice] = field(default_factory=dict[str, "SandboxChoice"])
    sandbox: Confinement | None = None  # this machine's sandbox; None: probed when a server needs it
    features_for: Callable[[ServerSpec], ClientFeatures] | None = None  # per server, when set
