"""How LevelCode connects to its servers: limits, timeouts, where logs and private folders go, what
a repository's server must never receive, which servers run in the sandbox, and who answers a
server's requests and sign-ins.

Plain data, shared by the early start, the transport factory, the connection and the hub; light to
import (no event loop, no protocol), because a session builds its options (`session_options`)
before it spawns its first server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.mcp.config.environment import settings_key_values
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.protocol.limits import DEFAULT_HINTED_PROBE_SECONDS, DEFAULT_MAX_MESSAGE_BYTES
from levelcode.mcp.protocol.sign_in import SignIn
from levelcode.platform import paths
from levelcode.policy.settings import Settings

if TYPE_CHECKING:
    from levelcode.mcp.protocol.session import ClientFeatures
    from levelcode.mcp.protocol.transport import AuthHook
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
    sandbox: Confinement | None = None  # this machine's sandbox; None: probed when a server needs it
    # per server, when set; its second argument takes a note for the model about the call in flight
    features_for: Callable[[ServerSpec, Callable[[str], None]], ClientFeatures] | None = None


def session_options(workspace: Path, settings: Settings) -> ConnectOptions:
    """The options a session connects its servers with, built once (the early start resolves its
    launches with them, and the hub is built from the same object): logs, private folders and
    sign-ins under the state dir; the apiKey a repository's server must never receive."""
    return ConnectOptions(
        workspace=workspace,
        log_dir=paths.logs_dir(),
        servers_dir=paths.servers_dir(),
        provider_key_values=frozenset(settings_api_key(settings)),
        sign_in=SignIn(store_dir=paths.state_dir()),  # stored sign-ins; headless: never a browser
    )


def settings_api_key(settings: Settings) -> list[str]:
    """The apiKey in the user's settings, which a repository's server must never receive."""
    return settings_key_values(settings)
