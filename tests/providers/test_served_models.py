"""What a provider's endpoint serves (`GET …/models`, the list `/model` shows for a custom base URL),
through the real SDKs against the fake servers, once per API. Load-bearing: the names are the
server's own, not LevelCode's price table; a server without the list is told apart (None) from
one that refused or could not be reached (a ProviderError with the API's words)."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ProviderAuthError, ProviderError
from levelcode.providers.keys import is_custom_endpoint
from levelcode.providers.lazy import LazyProvider
from tests.providers.support import Api, Connect

LOCAL_MODELS = ["llama3.3:70b", "qwen3-coder:30b"]


async def test_the_models_the_server_lists(api: Api, connect: Connect) -> None:
    with api.fake(models=[*LOCAL_MODELS, api.model]) as server:
        served = await connect(server).served_models()
        assert [r.path.split("?")[0] for r in server.requests] == ["/v1/models"]
    assert served == sorted([*LOCAL_MODELS, api.model])


async def test_a_server_without_a_model_list(api: Api, connect: Connect) -> None:
    with api.fake(lists_models=False) as server:
        assert await connect(server).served_models() is None


async def test_a_refused_key_and_an_unreachable_server_are_errors(api: Api, connect: Connect) -> None:
    with api.fake(api_key="the-right-key") as server, pytest.raises(ProviderAuthError, match="rejected"):
        await connect(server).served_models()
    with api.fake() as server:
        pass  # stopped: nothing listens on its port any more
    with pytest.raises(ProviderError, match="Could not reach"):
        await connect(server).served_models()


async def test_the_lazy_provider_lists_through_the_provider_it_makes(api: Api) -> None:
    with api.fake(models=LOCAL_MODELS) as server:
        provider = LazyProvider(api.settings(server))
        try:
            assert await provider.served_models() == LOCAL_MODELS
        finally:
            await provider.aclose()


def test_which_base_urls_serve_models_of_their_own_choosing() -> None:
    assert not is_custom_endpoint("openai", None)
    assert not is_custom_endpoint("openai", "https://api.openai.com/v1")
    assert not is_custom_endpoint("anthropic", "https://api.anthropic.com")
    assert is_custom_endpoint("openai", "http://localhost:11434/v1")  # Ollama
    assert is_custom_endpoint("openai", "https://openrouter.ai/api/v1")
    assert is_custom_endpoint("anthropic", "https://llm-gateway.example.com")
