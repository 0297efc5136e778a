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
- context window: the user settings' `contextWindow`, else the model's (providers/context_windows.py).
The user settings' `model`, `baseUrl` and `apiKey` belong to the settings' `provider` (when unset:
the one inferred without flags) and apply only when that is the chosen provider: a key meant for
one provider is never sent to another because of a `--provider` or `--base-url` flag.
"""

from __future__ import annotations

from collections.abc import Mapping

from levelcode.core.errors import ConfigError
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
    user_settings: Mapping[str, object],
) -> ProviderSettings:
    """The settings to talk to a model with; raises ConfigError for an unknown provider or no model."""
    settings_provider = _provider_name(_text(user_settings, "provider"), origin="settings.json")
    chosen = _provider_name(provider, origin="--provider") or settings_provider
    chosen = chosen or _infer_provider(base_url, env, user_settings)
    settings_owner = settings_provider or _infer_provider(None, env, user_settings)
    applicable = user_settings if settings_owner == chosen else {}
    url = base_url or env.get(BASE_URL_ENV[chosen]) or _text(applicable, "baseUrl")
    chosen_model = model or _text(applicable, "model") or _default_model(chosen, url)
    return ProviderSettings(
        provider=chosen,
        model=chosen_model,
        base_url=url,
        api_key=find_api_key(chosen, url, env, applicable),
        max_retries=_retries(user_settings),
        context_window=context_window(chosen_model, user_settings),
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
    base_url: str | None, env: Mapping[str, str], user_settings: Mapping[str, object]
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
    if _text(user_settings, "baseUrl") and not env.get("ANTHROPIC_API_KEY"):
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


def _retries(user_settings: Mapping[str, object]) -> int:
    value = user_settings.get("maxRetries")
    default = ProviderSettings.max_retries
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10 else default


def _text(mapping: Mapping[str, object], key: str) -> str | None:
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None
