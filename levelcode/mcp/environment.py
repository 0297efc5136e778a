"""The environment a stdio server starts with: an allowlist of the user's variables plus its own env.

Pure: takes the parent environment as a mapping. A server never sees the user's whole environment
(API keys, cloud credentials); it gets what a program needs to run (PATH, HOME, locale, temp dir,
proxies and CA bundles for network access) plus the `env` its config gives it, whose values may
reference the user's variables as `${VAR}` or `${VAR:-default}`, expanded here at spawn time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from levelcode.errors import ServerStartError

ALLOWED_VARIABLES = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "LANG",
        "LANGUAGE",
        "TMPDIR",
        "TEMP",
        "TMP",
        "TZ",
        "COLORTERM",
        "XDG_RUNTIME_DIR",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "REQUESTS_CA_BUNDLE",
    }
)
ALLOWED_PREFIXES = ("LC_",)

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def inherited_environment(parent: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in parent.items() if k in ALLOWED_VARIABLES or k.startswith(ALLOWED_PREFIXES)}


def expand_references(
    value: str, parent: Mapping[str, str], *, server: str, key: str, field: str = "env"
) -> str:
    """`${VAR}` → the user's value; `${VAR:-default}` → the default when VAR is unset or empty."""

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = parent.get(name)
        if found:
            return found
        if default is not None:
            return default
        if found is not None:
            return found
        raise ServerStartError(
            f"{field} {key} refers to ${{{name}}}, which is not set in your environment "
            f"(set it, or write ${{{name}:-default}} in the config)",
            server=server,
        )

    return _REFERENCE.sub(substitute, value)


def server_environment(
    own: Iterable[tuple[str, str]], parent: Mapping[str, str], *, server: str
) -> dict[str, str]:
    """The allowlisted part of `parent`, overlaid with the server's own expanded `env`."""
    env = inherited_environment(parent)
    for key, value in own:
        env[key] = expand_references(value, parent, server=server, key=key)
    return env
