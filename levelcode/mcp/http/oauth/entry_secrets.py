"""The secrets an `oauth` entry names, made real at connect time: `${VAR}` references expanded from
the user's environment (a repository's server never receives LevelCode's provider keys), and files
read when a grant needs them (so a workload token rotated on disk is picked up).

A repository's server may not name files: its sign-in would send what they hold (a key's
signatures, a token) to an authorization server the repository chose. File references are
honoured only from the user's own settings; a repository entry that has one does not start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.environment import Withheld, expand_references
from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.http.oauth.metadata import OAuthProblem

MAX_SECRET_FILE_BYTES = 64 * 1024


@dataclass(frozen=True)
class OAuthSecrets:
    """Expanded values; never shown, never logged."""

    client_secret: str | None = field(default=None, repr=False)
    workload_token: str | None = field(default=None, repr=False)
    id_token: str | None = field(default=None, repr=False)
    idp_client_secret: str | None = field(default=None, repr=False)


def oauth_secrets(
    entry: OAuthEntry | None, parent_env: Mapping[str, str], *, server: str, tier: str, withheld: Withheld
) -> OAuthSecrets:
    """Raises ServerStartError for a `${VAR}` that is not set, or a repository entry naming a file."""
    if entry is None:
        return OAuthSecrets()
    files = entry.grants.file_references()
    if tier == "workspace" and files:
        key, path = files[0]
        raise ServerStartError(
            f"oauth.{key} ({path}) is honoured only in your own settings: a repository's server may "
            "not have LevelCode read files for its sign-in. Move the server to your settings to use it",
            server=server,
        )

    def expand(written: str | None, key: str) -> str | None:
        if not written:
            return None
        return expand_references(
            written, parent_env, server=server, key=key, field="oauth", withheld=withheld
        )

    assertion = entry.grants.identity_assertion
    return OAuthSecrets(
        client_secret=expand(entry.client_secret, "clientSecret"),
        workload_token=expand(entry.grants.workload_token, "workloadToken"),
        id_token=expand(assertion.id_token if assertion else None, "identityAssertion.idToken"),
        idp_client_secret=expand(
            assertion.client_secret if assertion else None, "identityAssertion.clientSecret"
        ),
    )


def read_secret_file(path: str, what: str) -> bytes:
    """A key or token file (`~` is the user's home), bounded in size; OAuthProblem naming `what`."""
    try:
        with Path(path).expanduser().open("rb") as handle:
            data = handle.read(MAX_SECRET_FILE_BYTES + 1)
    except OSError as exc:
        raise OAuthProblem(f"{what} {path} cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_SECRET_FILE_BYTES:
        raise OAuthProblem(f"{what} {path} is larger than {MAX_SECRET_FILE_BYTES} bytes")
    if not data.strip():
        raise OAuthProblem(f"{what} {path} is empty")
    return data.strip()
