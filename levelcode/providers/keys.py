"""Where a provider's API key comes from, and which endpoints need none.

Pure: reads only the mapping it is given, never `os.environ` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from levelcode.providers.base import ProviderName

PURE = True

SETTINGS_KEY = "apiKey"
# Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) ignore the key, but the SDK and some
# servers insist on one being sent.
PLACEHOLDER_API_KEY = "no-key-needed"

DEFAULT_BASE_URLS: Mapping[ProviderName, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
}
_HOSTED_OPENAI_SHAPED = ("api.openai.com", "openrouter.ai")
_OWN_HOSTS: Mapping[ProviderName, str] = {"anthropic": "api.anthropic.com", "openai": "api.openai.com"}


def url_host(url: str | None) -> str:
    return (urlsplit(url).hostname or "").lower() if url else ""


def _is_host(url: str | None, domain: str) -> bool:
    host = url_host(url)
    return host == domain or host.endswith("." + domain)


def is_openrouter(base_url: str | None) -> bool:
    return _is_host(base_url, "openrouter.ai")


def is_official_openai(base_url: str | None) -> bool:
    return base_url is None or _is_host(base_url, "api.openai.com")


def is_custom_endpoint(provider: ProviderName, base_url: str | None) -> bool:
    """A base URL that is not the provider's own API: a local or proxy server, which serves
    models of its own choosing (its `GET …/models` says which)."""
    return base_url is not None and not _is_host(base_url, _OWN_HOSTS[provider])


def key_env_vars(provider: ProviderName, base_url: str | None) -> tuple[str, ...]:
    """The environment variables that may hold the key, the preferred one first."""
    if provider == "anthropic":
        return ("ANTHROPIC_API_KEY",)
    if is_openrouter(base_url):
        return ("OPENROUTER_API_KEY", "OPENAI_API_KEY")
    return ("OPENAI_API_KEY",)


def needs_real_key(provider: ProviderName, base_url: str | None) -> bool:
    """False for a self-hosted OpenAI-compatible server: a placeholder key is sent instead."""
    if provider == "anthropic" or base_url is None:
        return True
    return any(_is_host(base_url, host) for host in _HOSTED_OPENAI_SHAPED)


def find_api_key(
    provider: ProviderName, base_url: str | None, env: Mapping[str, str], from_settings: str | None
) -> str | None:
    """The key from the environment, then from settings; the placeholder where none is needed."""
    for name in key_env_vars(provider, base_url):
        if env.get(name):
            return env[name]
    if from_settings:
        return from_settings
    return None if needs_real_key(provider, base_url) else PLACEHOLDER_API_KEY


def missing_key_message(provider: ProviderName, base_url: str | None) -> str:
    names = " or ".join(key_env_vars(provider, base_url))
    where = f" at {base_url}" if base_url else ""
    return (
        f"No API key for the {provider} provider{where}: set {names} in the environment, "
        f'or "{SETTINGS_KEY}" in your settings.json.'
    )
