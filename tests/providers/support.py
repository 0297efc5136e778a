"""Both provider kinds behind one small description, so each behaviour is tested against both APIs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from levelcode.core.messages import AssistantTurn, Message, ToolShape
from levelcode.providers.anthropic_provider import AnthropicProvider
from levelcode.providers.base import ProviderName, ProviderSettings
from levelcode.providers.openai_provider import OpenAIProvider
from tests.fakes import fake_anthropic, fake_openai
from tests.fakes.scripted_server import DEFAULT_API_KEY, RecordedRequest, ScriptedServer

ProviderClass = type[AnthropicProvider] | type[OpenAIProvider]


@dataclass(frozen=True)
class SchemaTool:
    name: str
    description: str = "A tool for tests."
    input_schema: Mapping[str, object] = dataclasses.field(
        default_factory=lambda: {"type": "object", "properties": {"path": {"type": "string"}}}
    )


@dataclass(frozen=True)
class Api:
    name: ProviderName
    fake: Callable[..., ScriptedServer]
    provider_class: ProviderClass
    model: str
    offered_tools: Callable[[RecordedRequest], list[str]]
    result_texts: Callable[[RecordedRequest], list[str]]  # tool results in the request's last turn

    def settings(self, server: ScriptedServer, **changes: Any) -> ProviderSettings:
        settings = ProviderSettings(self.name, self.model, server.base_url, DEFAULT_API_KEY, max_retries=2)
        return dataclasses.replace(settings, **changes)


ANTHROPIC = Api(
    "anthropic",
    fake_anthropic.fake_anthropic,
    AnthropicProvider,
    "claude-sonnet-5-5",
    fake_anthropic.offered_tool_names,
    lambda request: [block["content"] for block in fake_anthropic.tool_results(request)],
)
OPENAI = Api(
    "openai",
    fake_openai.fake_openai,
    OpenAIProvider,
    "gpt-5.5",
    fake_openai.offered_tool_names,
    lambda request: [message["content"] for message in fake_openai.tool_messages(request)],
)


Connect = Callable[..., AnthropicProvider | OpenAIProvider]


async def complete(
    provider: AnthropicProvider | OpenAIProvider,
    messages: list[Message],
    *,
    tools: tuple[ToolShape, ...] = (),
    system: str = "You are a test.",
    on_text: Callable[[str], None] | None = None,
) -> AssistantTurn:
    return await provider.complete(
        system=system, messages=messages, tools=tools, on_text=on_text or (lambda _piece: None)
    )
