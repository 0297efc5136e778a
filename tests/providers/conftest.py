"""Fixtures: `api` runs a test once per provider kind; `connect` makes providers and closes them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from levelcode.providers.anthropic_provider import AnthropicProvider
from levelcode.providers.openai_provider import OpenAIProvider
from tests.fakes.scripted_server import ScriptedServer
from tests.providers.support import ANTHROPIC, OPENAI, Api, Connect


@pytest.fixture(params=[ANTHROPIC, OPENAI], ids=lambda api: api.name)
def api(request: pytest.FixtureRequest) -> Api:
    param: Api = request.param
    return param


@pytest.fixture
async def connect(api: Api) -> AsyncIterator[Connect]:
    """Makes providers for `api` pointed at a fake server, and closes them after the test."""
    made: list[AnthropicProvider | OpenAIProvider] = []

    def make(server: ScriptedServer, **changes: Any) -> AnthropicProvider | OpenAIProvider:
        provider = api.provider_class(api.settings(server, **changes))
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()
