"""Choosing provider, model, base URL and key. Pure: no test touches the real environment.

Load-bearing direction: a key meant for one provider is never sent to another (property test at
the end); then the precedence table (flags, environment, user settings) and the clear errors.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.errors import ConfigError, ProviderAuthError
from levelcode.providers.anthropic_provider import AnthropicProvider
from levelcode.providers.base import ProviderSettings
from levelcode.providers.factory import (
    DEFAULT_MODELS,
    close_provider,
    make_provider,
    resolve_provider_settings,
)
from levelcode.providers.keys import PLACEHOLDER_API_KEY
from levelcode.providers.openai_provider import OpenAIProvider
from tests.support.settings import settings_of

OLLAMA = "http://localhost:11434/v1"
OPENROUTER = "https://openrouter.ai/api/v1"


def resolve(
    env: Mapping[str, str] | None = None, settings: Mapping[str, object] | None = None, **flags: str
) -> ProviderSettings:
    preferences = settings_of(settings or {}).provider  # the user's settings as parsed
    return resolve_provider_settings(**flags, env=env or {}, preferences=preferences)


def test_nothing_configured_means_anthropic_with_its_default_model_and_no_key() -> None:
    assert resolve() == ProviderSettings("anthropic", DEFAULT_MODELS["anthropic"], None, None)


def test_an_anthropic_key() -> None:
    assert resolve({"ANTHROPIC_API_KEY": "sk-ant"}).api_key == "sk-ant"


def test_only_an_openai_key_means_openai() -> None:
    assert resolve({"OPENAI_API_KEY": "sk-oa"}) == ProviderSettings(
        "openai", DEFAULT_MODELS["openai"], None, "sk-oa"
    )


def test_both_keys_mean_anthropic() -> None:
    settings = resolve({"OPENAI_API_KEY": "sk-oa", "ANTHROPIC_API_KEY": "sk-ant"})
    assert (settings.provider, settings.api_key) == ("anthropic", "sk-ant")


def test_a_local_base_url_means_openai_with_a_placeholder_key() -> None:
    settings = resolve(base_url=OLLAMA, model="qwen3-coder:30b")
    assert settings == ProviderSettings("openai", "qwen3-coder:30b", OLLAMA, PLACEHOLDER_API_KEY)


def test_a_real_key_is_still_sent_to_a_local_server() -> None:
    assert resolve({"OPENAI_API_KEY": "sk-oa"}, base_url=OLLAMA, model="m").api_key == "sk-oa"


def test_a_local_server_needs_a_model_name() -> None:
    with pytest.raises(ConfigError, match="--model"):
        resolve(base_url=OLLAMA)


def test_openai_base_url_from_the_environment() -> None:
    settings = resolve({"OPENAI_BASE_URL": OLLAMA}, {"model": "llama3"})
    assert (settings.provider, settings.base_url, settings.model) == ("openai", OLLAMA, "llama3")


def test_anthropic_base_url_from_the_environment() -> None:
    settings = resolve({"ANTHROPIC_BASE_URL": "https://proxy.example/anthropic"})
    assert (settings.provider, settings.base_url, settings.api_key) == (
        "anthropic",
        "https://proxy.example/anthropic",
        None,
    )


def test_an_anthropic_base_url_flag_means_anthropic() -> None:
    assert resolve(base_url="https://api.anthropic.com").provider == "anthropic"


def test_openrouter_prefers_its_own_key_and_has_no_placeholder() -> None:
    both = {"OPENROUTER_API_KEY": "sk-or", "OPENAI_API_KEY": "sk-oa"}
    assert resolve(both, base_url=OPENROUTER, model="m").api_key == "sk-or"
    assert resolve({"OPENAI_API_KEY": "sk-oa"}, base_url=OPENROUTER, model="m").api_key == "sk-oa"
    assert resolve(base_url=OPENROUTER, model="m").api_key is None


def test_flags_beat_the_environment_beats_settings() -> None:
    env = {"OPENAI_BASE_URL": "http://env:1/v1"}
    settings = {"provider": "openai", "baseUrl": "http://settings:1/v1", "model": "from-settings"}
    assert resolve(env, settings, base_url="http://flag:1/v1").base_url == "http://flag:1/v1"
    assert resolve(env, settings).base_url == "http://env:1/v1"
    assert resolve({}, settings).base_url == "http://settings:1/v1"
    assert resolve(env, settings, model="from-flag").model == "from-flag"
    assert resolve(env, settings).model == "from-settings"


def test_the_settings_provider_beats_inference() -> None:
    both = {"OPENAI_API_KEY": "sk-oa", "ANTHROPIC_API_KEY": "sk-ant"}
    assert resolve(both, {"provider": "openai"}).provider == "openai"


def test_settings_for_another_provider_are_not_applied() -> None:
    settings = {"provider": "openai", "model": "gpt-x", "baseUrl": OLLAMA, "apiKey": "sk-openai-one"}
    chosen = resolve({}, settings, provider="anthropic")
    assert chosen == ProviderSettings("anthropic", DEFAULT_MODELS["anthropic"], None, None)


def test_settings_without_a_provider_belong_to_the_inferred_one() -> None:
    key_only = {"apiKey": "sk-ant-in-settings"}
    assert resolve({}, key_only).api_key == "sk-ant-in-settings"
    assert resolve({}, key_only, provider="openai").api_key is None
    assert resolve({}, key_only, base_url=OLLAMA, model="m").api_key == PLACEHOLDER_API_KEY
    local = {"baseUrl": OLLAMA, "model": "llama3"}
    assert resolve({}, local) == ProviderSettings("openai", "llama3", OLLAMA, PLACEHOLDER_API_KEY)


def test_settings_key_is_used_after_the_environment() -> None:
    assert resolve({}, {"apiKey": "from-settings"}).api_key == "from-settings"
    assert resolve({"ANTHROPIC_API_KEY": "from-env"}, {"apiKey": "from-settings"}).api_key == "from-env"


@pytest.mark.parametrize(("value", "expected"), [(0, 0), (5, 5), (-1, 2), (True, 2), ("3", 2), (99, 2)])
def test_max_retries_from_settings(value: object, expected: int) -> None:
    assert resolve({}, {"maxRetries": value}).max_retries == expected


def test_an_unknown_provider_names_where_it_came_from() -> None:
    with pytest.raises(ConfigError, match="--provider"):
        resolve(provider="gemini")
    with pytest.raises(ConfigError, match=r"settings\.json"):
        resolve({}, {"provider": "gemini"})


def test_make_provider_without_a_key_says_where_to_put_one() -> None:
    with pytest.raises(ProviderAuthError) as caught:
        make_provider(resolve())
    assert "ANTHROPIC_API_KEY" in str(caught.value)
    assert '"apiKey"' in str(caught.value)
    with pytest.raises(ProviderAuthError, match="OPENROUTER_API_KEY"):
        make_provider(resolve(base_url=OPENROUTER, model="m"))


def test_make_provider_picks_the_class() -> None:
    assert isinstance(make_provider(resolve({"ANTHROPIC_API_KEY": "k"})), AnthropicProvider)
    assert isinstance(make_provider(resolve({"OPENAI_API_KEY": "k"})), OpenAIProvider)
    assert isinstance(make_provider(resolve(base_url=OLLAMA, model="m")), OpenAIProvider)


async def test_close_provider_closes_ours_and_tolerates_others() -> None:
    provider = make_provider(resolve(base_url=OLLAMA, model="m"))
    await close_provider(provider)
    await close_provider(object())  # type: ignore[arg-type]


# --- property: keys never cross providers ----------------------------------------------------

KEYS = {"ANTHROPIC_API_KEY": "KEY-anthropic", "OPENAI_API_KEY": "KEY-openai", "OPENROUTER_API_KEY": "KEY-or"}
URLS = [None, OLLAMA, OPENROUTER, "https://api.openai.com/v1", "https://api.anthropic.com"]


@given(
    env_keys=st.sets(st.sampled_from(sorted(KEYS))),
    provider=st.sampled_from([None, "anthropic", "openai"]),
    base_url=st.sampled_from(URLS),
    settings_provider=st.sampled_from([None, "anthropic", "openai"]),
)
def test_a_key_never_goes_to_another_provider(
    env_keys: set[str], provider: str | None, base_url: str | None, settings_provider: str | None
) -> None:
    env = {name: KEYS[name] for name in env_keys}
    settings: dict[str, object] = {"apiKey": "SETTINGS-KEY", "model": "m"}
    if settings_provider:
        settings["provider"] = settings_provider
    preferences = settings_of(settings).provider
    owner = resolve_provider_settings(model="m", env=env, preferences=preferences).provider
    chosen = resolve_provider_settings(
        provider=provider, base_url=base_url, model="m", env=env, preferences=preferences
    )
    foreign = ("KEY-openai", "KEY-or") if chosen.provider == "anthropic" else ("KEY-anthropic",)
    assert chosen.api_key not in foreign
    if chosen.api_key == "SETTINGS-KEY":
        assert chosen.provider == owner


def test_the_context_window_is_the_models_unless_the_user_says_otherwise() -> None:
    assert resolve({"ANTHROPIC_API_KEY": "k"}).context_window == 200_000
    assert resolve({"OPENAI_API_KEY": "k"}).context_window == 400_000
    assert resolve(base_url=OLLAMA, model="qwen3-coder:30b").context_window == 128_000
    local = resolve(base_url=OLLAMA, model="qwen3-coder:30b", settings={"contextWindow": 32_768})
    assert local.context_window == 32_768
    assert resolve(settings={"contextWindow": 12}).context_window == 200_000  # nonsense: the model's
