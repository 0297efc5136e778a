"""Which provider, model, base URL and key to use, and the provider object for them.

`resolve_provider_settings` is pure (flags, an environment mapping and the user's settings in;
`ProviderSettings` out). `make_provider` imports the chosen SDK, only then.

Sources, highest first:
- provider: `--provider`; else the user settings' `provider`; else inferred: a base URL from
  `--base-url` (OpenAI-compatible unless it is anthropic.com), then `ANTHROPIC_BASE_URL` (anthropic)
  or `OPENAI_BASE_URL` (openai), then an OpenAI or OpenRouter key without an Anthropic key
  (openai), then a `baseUrl` in user settings (openai); otherwise anthropic.
- model: `--model`; else the user settings' `model`; else the provider's default
  (`DEFAULT_MODELS`). A self-hosted or OpenRouter base URL has no default: it needs a model name.
- base URL: `--base-url`; else `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` for the chosen provider;
  else the user settings' `baseUrl`; else the SDK's official endpoint.
- key: the provider's environment variable (`ANTHROPIC_API_KEY`; `OPENAI_API_KEY`; for
  openrouter.ai `OPENROUTER_API_KEY` first), else the user settings' `apiKey`; a self-hosted
  OpenAI-compatible server gets a placeholder key.
- retries (on 429, 5xx, connection errors): the user settings' `maxRetries` (0-10), else 2.
  The user's settings come parsed (policy/settings_keys.py `ProviderPreferences`).
- context window: the user settings' `contextWindow`, else the model's (providers/context_windows.py).
The user settings' `model`, `baseUrl` and `apiKey` belong to the settings' `provider` (when unset:
the one inferred without flags) and apply only when that is the chosen provider: a key meant for
one provider is never sent to another because of a `--provider` or `--base-url` flag.
"""

from __future__ import annotations

from collections.abc import Mapping

from levelcode.core.errors import ConfigError
from levelcode.policy.settings_keys import ProviderPreferences
from levelcode.providers.base import Provider, ProviderName, ProviderSettings
from levelcode.providers.context_windows import context_window
from levelcode.providers.keys import find_api_key, is_official_openai, url_host

PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "openai")
# Chosen for agentic coding with tools at a moderate price; override with --model or "model".
DEFAULT_MODELS: Mapping[ProviderName, str] = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-5.5",
}
BASE_URL_ENV: Mapping[ProviderName, str] = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
}


def resolve_provider_settings(
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str],
    preferences: ProviderPreferences,
) -> ProviderSettings:
    """The settings to talk to a model with; raises ConfigError for an unknown provider or no model.
    `preferences`: what the user's settings say (Settings.provider)."""
    settings_provider = _provider_name(preferences.provider, origin="settings.json")
    chosen = _provider_name(provider, origin="--provider") or settings_provider
    chosen = chosen or _infer_provider(base_url, env, preferences)
    settings_owner = settings_provider or _infer_provider(None, env, preferences)
    applicable = preferences if settings_owner == chosen else ProviderPreferences()
    url = base_url or env.get(BASE_URL_ENV[chosen]) or applicable.base_url
    chosen_model = model or applicable.model or _default_model(chosen, url)
    return ProviderSettings(
        provider=chosen,
        model=chosen_model,
        base_url=url,
        api_key=find_api_key(chosen, url, env, applicable.api_key),
        max_retries=ProviderSettings.max_retries
        if preferences.max_retries is None
        else preferences.max_retries,
        context_window=context_window(chosen_model, preferences.context_window),
    )


def make_provider(settings: ProviderSettings) -> Provider:
    """The provider object; raises ProviderAuthError when there is no key (naming where to put one)."""
    if settings.provider == "anthropic":
        from levelcode.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(settings)
    from levelcode.providers.openai_provider import OpenAIProvider

    return OpenAIProvider(settings)


async def close_provider(provider: Provider) -> None:
    """Release a provider's connections (ours have `aclose`; a test double may have none)."""
    aclose = getattr(provider, "aclose", None)
    if aclose is not None:
        await aclose()


def _infer_provider(
    base_url: str | None, env: Mapping[str, str], preferences: ProviderPreferences
) -> ProviderName:
    if base_url:
        return "anthropic" if _is_anthropic_url(base_url) else "openai"
    if env.get("ANTHROPIC_BASE_URL"):
        return "anthropic"
    if env.get("OPENAI_BASE_URL"):
        return "openai"
    has_openai_key = bool(env.get("OPENAI_API_KEY") or env.get("OPENROUTER_API_KEY"))
    if has_openai_key and not env.get("ANTHROPIC_API_KEY"):
        return "openai"
    if preferences.base_url and not env.get("ANTHROPIC_API_KEY"):
        return "openai"
    return "anthropic"


def _default_model(provider: ProviderName, base_url: str | None) -> str:
    if provider == "openai" and not is_official_openai(base_url):
        raise ConfigError(
            f"No model chosen for the OpenAI-compatible server at {base_url}: pass --model NAME "
            '(e.g. the name `ollama list` shows), or set "model" in your settings.json.'
        )
    return DEFAULT_MODELS[provider]


def _is_anthropic_url(url: str) -> bool:
    host = url_host(url)
    return host == "anthropic.com" or host.endswith(".anthropic.com")


def _provider_name(value: str | None, *, origin: str) -> ProviderName | None:
    if value is None:
        return None
    if value not in PROVIDERS:
        raise ConfigError(f"Unknown provider {value!r} (from {origin}): use one of {', '.join(PROVIDERS)}.")
    return value
