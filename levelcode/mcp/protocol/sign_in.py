"""What a sign-in to a remote server needs from the world around it, as plain types: who the user
is for a browser hand-off (or nobody, headless), and where sign-ins are kept.

Plain data and protocols: the OAuth code (mcp/http/oauth) fills them in; the CLI supplies the
user agent; the connection options carry them. A `SignInPrompt` holds no secret.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

DEFAULT_SIGN_IN_SECONDS = 300.0  # how long a browser sign-in may take before it is given up


@dataclass(frozen=True)
class SignInPrompt:
    """What the user is told before the browser opens: for which server, at which authorization
    server, for which scopes, and the URL to open (also printed, for a machine without a browser)."""

    server: str
    resource: str
    issuer: str
    scope: tuple[str, ...] | None
    url: str
    redirect_uri: str
    step_up: bool = False  # more permissions for a server already signed in


Deliver = Callable[[dict[str, str]], None]


class UserAgent(Protocol):
    async def open(self, prompt: SignInPrompt, deliver: Deliver) -> None:
        """Show the prompt and send the user to `prompt.url`. The answer arrives at the localhost
        callback; a user agent that can also take it another way (a pasted URL) calls `deliver`.
        Raising ends the sign-in (the user said no)."""


@dataclass(frozen=True)
class SignIn:
    """How remote servers' sign-ins happen in this process."""

    store_dir: Path | None = None  # where the 0600 token file goes; None: in memory only
    user_agent: UserAgent | None = None  # None: headless — stored sign-ins and refresh, never a browser
    force: bool = False  # `mcp login`: ignore what is stored and sign in again
    wait_seconds: float = DEFAULT_SIGN_IN_SECONDS
