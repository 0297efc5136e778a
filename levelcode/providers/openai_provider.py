"""OpenAI-shaped Chat Completions through the official SDK's async client, for any base URL:
OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server. Streaming; tool-call deltas assembled by index.

This module imports the `openai` SDK, so nothing imports it at start-up: `make_provider` does, on
first use. SDK exceptions are translated here, once, into `ProviderError`s. Cancelling the task
awaiting `complete` closes the HTTP response (and so its connection).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai
from openai.types.chat import ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import ChoiceDelta, ChoiceDeltaToolCall

from levelcode.core.messages import AssistantTurn, Block, Message, TextBlock, ToolShape, ToolUse, Usage
from levelcode.providers.base import ProviderSettings
from levelcode.providers.failures import (
    ApiFailure,
    connection_detail,
    stream_incomplete_error,
)
from levelcode.providers.keys import DEFAULT_BASE_URLS, is_official_openai
from levelcode.providers.sdk_provider import SdkProvider
from levelcode.providers.translate import (
    openai_messages,
    openai_stop_reason,
    openai_tools,
    tool_use_of,
)


class OpenAIProvider(SdkProvider):
    api_error = openai.APIError

    def _builder(self, on_text: Callable[[str], None]) -> _TurnBuilder:
        return _TurnBuilder(on_text)

    def _failure(self, exc: openai.APIError, *, mid_stream: bool) -> ApiFailure:
        return _failure(exc, mid_stream=mid_stream)

    async def _stream_into(self, builder: _TurnBuilder, request: dict[str, Any]) -> None:
        stream = await self._clients.get().chat.completions.create(**request, stream=True)
        async with stream:  # closes the response on every exit, cancellation included
            async for chunk in stream:
                builder.feed(chunk)

    def _request(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolShape]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self._settings.model,
            "messages": openai_messages(system, messages),
            "stream_options": {"include_usage": True},
        }
        # OpenAI's own newer models refuse `max_tokens`; the compatible servers know only that name.
        limit_name = "max_completion_tokens" if is_official_openai(self._settings.base_url) else "max_tokens"
        request[limit_name] = self._settings.max_tokens
        if tools:
            request["tools"] = openai_tools(tools)
        return request

    def _list_models(self, client: openai.AsyncOpenAI) -> AsyncIterator[Any]:
        return aiter(client.models.list())

    def _new_client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self._settings.api_key,
            base_url=self._settings.base_url or DEFAULT_BASE_URLS["openai"],
            max_retries=self._settings.max_retries,
        )


def _failure(exc: openai.APIError, *, mid_stream: bool) -> ApiFailure:
    # The SDK has already unwrapped `{"error": {...}}`: `body` is the inner object when there is one.
    body = exc.body
    message = body.get("message") if isinstance(body, dict) else body if isinstance(body, str) else None
    text = message.strip() if isinstance(message, str) and message.strip() else exc.message
    if isinstance(exc, openai.APIStatusError):
        return ApiFailure(exc.status_code, text, exc.code)
    return ApiFailure(None, connection_detail(exc), exc.code, mid_stream=mid_stream)


@dataclass
class _CallParts:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list[str])

    def add(self, piece: ChoiceDeltaToolCall) -> None:
        self.id = self.id or (piece.id or "")
        function = piece.function
        if function is None:
            return
        # OpenAI sends the name once; a few servers repeat the whole name in every chunk.
        if function.name and function.name != self.name:
            self.name += function.name
        if function.arguments:
            self.arguments.append(function.arguments)

    def tool_use(self) -> ToolUse:
        call_id = self.id or f"call_{uuid.uuid4().hex[:24]}"  # some local servers send no id
        return tool_use_of(call_id, self.name, "".join(self.arguments))


class _TurnBuilder:
    """Assembles one streamed response: text, tool calls by index, finish reason, usage."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self._on_text = on_text
        self._text: list[str] = []
        self._calls: dict[int, _CallParts] = {}
        self._finish_reason: str | None = None
        self._usage: Usage | None = None
        self._started = False

    def feed(self, chunk: ChatCompletionChunk) -> None:
        self._started = True
        if chunk.usage is not None:
            details = chunk.usage.prompt_tokens_details
            cached = (details.cached_tokens or 0) if details is not None else 0
            # prompt_tokens counts the cached part too; ours counts it apart, as Anthropic does
            self._usage = Usage(chunk.usage.prompt_tokens - cached, chunk.usage.completion_tokens, cached)
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            self._delta(choice.delta)
            self._finish_reason = choice.finish_reason or self._finish_reason

    def _delta(self, delta: ChoiceDelta) -> None:
        if delta.content:
            self._text.append(delta.content)
            self._on_text(delta.content)
        for piece in delta.tool_calls or ():
            self._calls.setdefault(piece.index, _CallParts()).add(piece)

    @property
    def started(self) -> bool:
        return self._started

    def finish(self, settings: ProviderSettings) -> AssistantTurn:
        if self._finish_reason is None:  # every compatible server we know sends one; a cut stream does not
            raise stream_incomplete_error(settings)
        blocks: list[Block] = [TextBlock("".join(self._text))] if self._text else []
        blocks.extend(self._calls[index].tool_use() for index in sorted(self._calls))
        stop_reason = openai_stop_reason(self._finish_reason, has_tool_calls=bool(self._calls))
        return AssistantTurn(Message("assistant", tuple(blocks)), stop_reason, self._usage)
