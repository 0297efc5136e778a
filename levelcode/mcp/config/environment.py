"""The environment a stdio server starts with: an allowlist of the user's variables plus its own env.

Pure: takes the parent environment as a mapping. A server never sees the user's whole environment
(API keys, cloud credentials); it gets what a program needs to run (PATH, HOME, locale, temp dir,
proxies and CA bundles for network access) plus the `env` its config gives it, whose values may
reference the user's variables as `${VAR}` or `${VAR:-default}`, expanded here at spawn time.
A repository's server never receives LevelCode's own provider keys that way: for it, a reference
to one (by name, or to any variable holding the same value) is treated as unset.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from levelcode.core.errors import ServerStartError
from levelcode.policy.settings import Settings

PURE = True

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
# The keys LevelCode itself sends to model providers (providers/keys.py reads them).
PROVIDER_KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "LEVELCODE_API_KEY",
)

# `${VAR}` and `${VAR:-default}`: group 1 the name, group 2 the default (None when not written).
REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def inherited_environment(parent: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in parent.items() if k in ALLOWED_VARIABLES or k.startswith(ALLOWED_PREFIXES)}


@dataclass(frozen=True)
class Withheld:
    """Secrets a server must not receive through `${VAR}`: LevelCode's provider keys by name, and
    any variable whose value is one of `values` (the keys' values, the settings' apiKey)."""

    names: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()

    def covers(self, name: str, parent: Mapping[str, str]) -> bool:
        value = parent.get(name)
        return name in self.names or (bool(value) and value in self.values)


NOTHING_WITHHELD = Withheld()


def provider_keys_withheld(parent: Mapping[str, str], extra_values: Collection[str] = ()) -> Withheld:
    """What a repository's server is kept from: the provider key variables and their values."""
    values = {parent[name] for name in PROVIDER_KEY_VARIABLES if parent.get(name)}
    values.update(value for value in extra_values if value)
    return Withheld(frozenset(PROVIDER_KEY_VARIABLES), frozenset(values))


def settings_key_values(settings: Settings) -> list[str]:
    """The apiKey in the user's settings, which a repository's server must never receive."""
    key = settings.provider.api_key
    return [key] if key else []


def references(value: str) -> list[str]:
    """The variable names `value` refers to as `${VAR}` or `${VAR:-default}`, in order."""
    return [match.group(1) for match in REFERENCE.finditer(value)]


def withheld_references(values: Iterable[str], parent: Mapping[str, str], withheld: Withheld) -> list[str]:
    """The variables `values` refer to that `withheld` keeps back, each once, in order."""
    names = [name for value in values for name in references(value) if withheld.covers(name, parent)]
    return list(dict.fromkeys(names))


def expand_references(
    value: str,
    parent: Mapping[str, str],
    *,
    server: str,
    key: str,
    field: str = "env",
    withheld: Withheld = NOTHING_WITHHELD,
    file: str | None = None,
) -> str:
    """`${VAR}` → the user's value; `${VAR:-default}` → the default when VAR is unset or empty
    (or withheld: then it counts as unset). `file`: the entry's, named in the error."""
    where = f"{field} {key}".strip()

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        kept_back = withheld.covers(name, parent)
        found = None if kept_back else parent.get(name)
        if found:
            return found
        if default is not None:
            return default
        if found is not None:
            return found
        if kept_back:
            raise ServerStartError(
                f"{where} refers to ${{{name}}}, which holds LevelCode's own provider key: "
                f"a repository's server never receives it (give the server a key of its own, "
                f"or write ${{{name}:-default}})",
                server=server,
            )
        raise ServerStartError(
            f"{where} refers to ${{{name}}}, which is not set in your environment "
            f"(set it before LevelCode starts: export {name}=…; or write ${{{name}:-default}} in "
            f"{file or 'the config'})",
            server=server,
        )

    return REFERENCE.sub(substitute, value)


def server_environment(
    own: Iterable[tuple[str, str]],
    parent: Mapping[str, str],
    *,
    server: str,
    withheld: Withheld = NOTHING_WITHHELD,
    file: str | None = None,
) -> dict[str, str]:
    """The allowlisted part of `parent`, overlaid with the server's own expanded `env`."""
    env = inherited_environment(parent)
    for key, value in own:
        env[key] = expand_references(value, parent, server=server, key=key, withheld=withheld, file=file)
    return env
