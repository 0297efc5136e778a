"""The hosts the package managers are configured to use, as the user configured them: npm's
registry (`npm_config_registry`, the user's and the global npmrc, else registry.npmjs.org) and
uv's and pip's indexes (`UV_INDEX_URL`, `UV_DEFAULT_INDEX`, `UV_INDEX`, `UV_EXTRA_INDEX_URL`,
`PIP_INDEX_URL`, `PIP_EXTRA_INDEX_URL`, uv.toml, pip.conf, else pypi.org and
files.pythonhosted.org); and the variables that point the sandboxed tools at them.

Pure: takes the environment and the texts of the config files (`config_files` names which, the
caller reads them); never reads the disk. Only the user's configuration counts — the variables
LevelCode itself was started with and the files in the user's and the system's config folders —
never a repository's `.npmrc`, `uv.toml` or `pyproject.toml`: a repository that names its own
index does not widen the list, its requests to that index are refused.

A registry the user configured is theirs by choice and may be any machine (a registry on
127.0.0.1 or the office network); the defaults are let through only to public addresses.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from levelcode.policy.network_hosts import HostEntry, parse_host_entry

PURE = True

NPM_DEFAULT_REGISTRY = "https://registry.npmjs.org/"
PYTHON_DEFAULT_HOSTS = ("pypi.org", "files.pythonhosted.org")
# Passed from the user's environment into the sandbox (a server's environment is an allowlist
# that drops them): where uv and pip look for packages.
PYTHON_INDEX_VARIABLES = (
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
)
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class PackageSources:
    """One ecosystem's hosts and the variables its tools need inside the sandbox."""

    configured: tuple[HostEntry, ...] = ()  # named by the user's configuration: any address
    defaults: tuple[HostEntry, ...] = ()  # the tools' defaults: public addresses only
    environment: tuple[tuple[str, str], ...] = ()


def config_files(env: Mapping[str, str], home: Path) -> dict[str, tuple[Path, ...]]:
    """The user's and the system's config files of npm, uv and pip, the one that wins first."""
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    npm = [Path(env.get("npm_config_userconfig") or env.get("NPM_CONFIG_USERCONFIG") or home / ".npmrc")]
    npm += [Path(p) for p in (env.get("npm_config_globalconfig"), env.get("NPM_CONFIG_GLOBALCONFIG")) if p]
    npm += [Path("/usr/local/etc/npmrc"), Path("/usr/etc/npmrc"), Path("/etc/npmrc")]
    uv = [Path(env["UV_CONFIG_FILE"])] if env.get("UV_CONFIG_FILE") else []
    uv += [config_home / "uv" / "uv.toml", Path("/etc/uv/uv.toml")]
    pip = [Path(env["PIP_CONFIG_FILE"])] if env.get("PIP_CONFIG_FILE") else []
    pip += [config_home / "pip" / "pip.conf", home / ".pip" / "pip.conf", Path("/etc/pip.conf")]
    return {"npm": tuple(npm), "uv": tuple(uv), "pip": tuple(pip)}


def npm_sources(env: Mapping[str, str], npmrc_texts: Sequence[str]) -> PackageSources:
    """npm's registries: `registry` from the environment, else the first npmrc that sets it,
    else the default; every `@scope:registry` the files set. `npm_config_registry` inside is the
    registry found, since the user's own .npmrc is hidden there."""
    settings = [_npmrc(text, env) for text in npmrc_texts]
    primary = _npm_env(env, "registry") or next((s["registry"] for s in settings if "registry" in s), None)
    scoped = [value for s in settings for key, value in s.items() if key.endswith(":registry")]
    configured = _entries([primary, *scoped] if primary else scoped)
    registry = primary or NPM_DEFAULT_REGISTRY
    defaults = () if primary else _entries([NPM_DEFAULT_REGISTRY])
    return PackageSources(configured, defaults, (("npm_config_registry", registry),))


def python_sources(
    env: Mapping[str, str], uv_texts: Sequence[str], pip_texts: Sequence[str]
) -> PackageSources:
    """uv's and pip's indexes: the environment's, then their config files'; pypi.org and
    files.pythonhosted.org unless both tools have a primary index of their own."""
    uv = [_uv_urls(text) for text in uv_texts]
    pip = [_pip_urls(text) for text in pip_texts]
    uv_primary = _env_urls(env, "UV_INDEX_URL", "UV_DEFAULT_INDEX") or next((p for p, _ in uv if p), [])
    pip_primary = _env_urls(env, "PIP_INDEX_URL") or next((p for p, _ in pip if p), [])
    extras = _env_urls(env, "UV_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS", "PIP_EXTRA_INDEX_URL")
    extras += _env_urls(env, "PIP_FIND_LINKS") + [u for _, more in (*uv, *pip) for u in more]
    defaults = () if uv_primary and pip_primary else tuple(map(parse_host_entry, PYTHON_DEFAULT_HOSTS))
    passed = tuple((name, env[name]) for name in PYTHON_INDEX_VARIABLES if env.get(name))
    return PackageSources(_entries([*uv_primary, *pip_primary, *extras]), defaults, passed)


def _npmrc(text: str, env: Mapping[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith((";", "#")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip().strip('"').strip("'")
        found[key.strip()] = _REFERENCE.sub(lambda m: env.get(m.group(1), ""), value)
    return found


def _npm_env(env: Mapping[str, str], key: str) -> str | None:
    """An `npm_config_KEY` variable, in any case (npm reads them so)."""
    wanted = f"npm_config_{key}"
    return next((v for k, v in env.items() if k.lower() == wanted and v), None)


def _env_urls(env: Mapping[str, str], *names: str) -> list[str]:
    """URLs from space- (or comma-) separated variables; uv's `UV_INDEX` entries may be `name=url`."""
    words = [w for name in names for w in re.split(r"[\s,]+", env.get(name, "")) if w]
    return [w.partition("=")[2] if "=" in w and "://" not in w.partition("=")[0] else w for w in words]


def _uv_urls(text: str) -> tuple[list[str], list[str]]:
    """(primary, more) index URLs of a uv.toml: `index-url`, a `default = true` index; the rest."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return [], []
    pip = doc.get("pip")
    tables: list[dict[str, object]] = [doc, pip if isinstance(pip, dict) else {}]
    primary = [str(t["index-url"]) for t in tables if isinstance(t.get("index-url"), str)]
    more = [str(u) for t in tables for key in ("extra-index-url", "find-links") for u in _list(t.get(key))]
    indexes = doc.get("index")
    for index in indexes if isinstance(indexes, list) else []:
        if isinstance(index, dict) and isinstance(index.get("url"), str):
            (primary if index.get("default") is True else more).append(str(index["url"]))
    return primary, more


def _pip_urls(text: str) -> tuple[list[str], list[str]]:
    """(primary, more) index URLs of a pip.conf's [global] and [install] sections."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return [], []
    sections = [parser[s] for s in ("global", "install") if parser.has_section(s)]
    primary = [s["index-url"].strip() for s in sections if s.get("index-url", "").strip()]
    more = [u for s in sections for key in ("extra-index-url", "find-links") for u in s.get(key, "").split()]
    return primary, more


def _list(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _entries(urls: Iterable[str]) -> tuple[HostEntry, ...]:
    """The host (and port, when the URL names one) of each http(s) URL; local paths and file://
    URLs name no host, and a URL that does not parse is left out."""
    found: list[HostEntry] = []
    for url in urls:
        try:
            parts = urlsplit(url.strip())
            if parts.scheme not in ("http", "https") or not parts.hostname:
                continue
            host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
            found.append(parse_host_entry(f"{host}:{parts.port}" if parts.port else host))
        except ValueError:
            continue
    return tuple(dict.fromkeys(found))
