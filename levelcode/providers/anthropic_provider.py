"""The Anthropic Messages API through the official SDK's async client: streaming, native tools.

This module imports the `anthropic` SDK, so nothing imports it at start-up: `make_provider`
does, on first use. SDK exceptions are translated here, once, into `ProviderError`s.
Cancelling the task awaiting `complete` closes the HTTP response (and so its connection).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anthropic
from anthropic.types import (
    InputJSONDelta,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStopEvent,
    RawMessageStreamEvent,
    TextDelta,
    ToolUseBlock,
)

from levelcode.core.messages import (
    PARAGRAPH_BREAK,
    AssistantTurn,
    Block,
    Message,
    TextBlock,
    ToolShape,
    ToolUse,
    Usage,
)
from levelcode.providers.anthropic_cache import with_cache_breakpoints
from levelcode.providers.base import ProviderSettings
from levelcode.providers.failures import (
    ApiFailure,
    connection_detail,
    stream_incomplete_error,
)
from levelcode.providers.keys import DEFAULT_BASE_URLS
from levelcode.providers.sdk_provider import SdkProvider
from levelcode.providers.translate import (
    anthropic_messages,
    anthropic_tools,
    referable_tools,
    tool_use_of,
)


class AnthropicProvider(SdkProvider):
    api_error = anthropic.APIError

    def _builder(self, on_text: Callable[[str], None]) -> _TurnBuilder:
        return _TurnBuilder(on_text)

    def _failure(self, exc: anthropic.APIError, *, mid_stream: bool) -> ApiFailure:
        return _failure(exc, mid_stream=mid_stream)

    async def _stream_into(self, builder: _TurnBuilder, request: dict[str, Any]) -> None:
        stream = await self._clients.get().messages.create(**request, stream=True)
        async with stream:  # closes the response on every exit, cancellation included
            async for event in stream:
                builder.feed(event)

    def _request(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolShape]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self._settings.model,
            "max_tokens": self._settings.max_tokens,
            "messages": anthropic_messages(messages, referable=referable_tools(tools)),
        }
        if system:
            request["system"] = system
        if tools:
            request["tools"] = anthropic_tools(tools)
        return with_cache_breakpoints(request)

    def _list_models(self, client: anthropic.AsyncAnthropic) -> AsyncIterator[Any]:
        return aiter(client.models.list(limit=1000))  # the API's largest page

    def _new_client(self) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key=self._settings.api_key,
            base_url=self._settings.base_url or DEFAULT_BASE_URLS["anthropic"],
            max_retries=self._settings.max_retries,
        )


def _failure(exc: anthropic.APIError, *, mid_stream: bool) -> ApiFailure:
    if isinstance(exc, anthropic.APIStatusError):
        message = exc.api_message or _body_text(exc.body) or exc.message
        return ApiFailure(exc.status_code, message, exc.error_code or exc.type)
    return ApiFailure(None, connection_detail(exc), mid_stream=mid_stream)


def _body_text(body: object) -> str:
    return body.strip() if isinstance(body, str) else ""


def _usage(reported: anthropic.types.Usage | anthropic.types.MessageDeltaUsage, known: Usage) -> Usage:
    """The API's counts (a delta's are cumulative and may leave input counts out: keep the known)."""
    return Usage(
        reported.input_tokens or known.input_tokens,
        reported.output_tokens,
        reported.cache_read_input_tokens or known.cache_read_input_tokens,
        reported.cache_creation_input_tokens or known.cache_creation_input_tokens,
    )


@dataclass
class _Part:
    kind: Literal["text", "tool"]
    id: str = ""
    name: str = ""
    start_input: dict[str, object] = field(default_factory=dict[str, object])
    pieces: list[str] = field(default_factory=list[str])

    def block(self) -> Block | None:
        joined = "".join(self.pieces)
        if self.kind == "text":
            return TextBlock(joined) if joined else None
        if self.pieces:
            return tool_use_of(self.id, self.name, joined)
        return ToolUse(self.id, self.name, self.start_input)


class _TurnBuilder:
    """Assembles one streamed response: text and tool-use blocks by index, stop reason, usage."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self._on_text = on_text
        self._parts: dict[int, _Part] = {}
        self._stop_reason: str | None = None
        self._usage = Usage()
        self._started = False
        self._stopped = False
        self._text_part: _Part | None = None  # the text block that streamed last

    def feed(self, event: RawMessageStreamEvent) -> None:
        self._started = True
        if isinstance(event, RawMessageStartEvent):
            self._usage = _usage(event.message.usage, Usage())
        elif isinstance(event, RawContentBlockStartEvent):
            self._start_block(event)
        elif isinstance(event, RawContentBlockDeltaEvent):
            self._delta(event)
        elif isinstance(event, RawMessageDeltaEvent):
            self._stop_reason = event.delta.stop_reason or self._stop_reason
            self._usage = _usage(event.usage, self._usage)
        elif isinstance(event, RawMessageStopEvent):
            self._stopped = True

    def _start_block(self, event: RawContentBlockStartEvent) -> None:
        block = event.content_block
        if isinstance(block, ToolUseBlock):
            self._parts[event.index] = _Part("tool", block.id, block.name, dict(block.input))
        elif block.type == "text":
            part = self._parts[event.index] = _Part("text")
            self._stream_text(part, block.text)
        # other block kinds (thinking, server tools) are not requested, so not kept

    def _delta(self, event: RawContentBlockDeltaEvent) -> None:
        part = self._parts.get(event.index)
        delta = event.delta
        if part is None:
            return
        if isinstance(delta, TextDelta) and part.kind == "text":
            self._stream_text(part, delta.text)
        elif isinstance(delta, InputJSONDelta) and part.kind == "tool":
            part.pieces.append(delta.partial_json)

    def _stream_text(self, part: _Part, text: str) -> None:
        """Keep and stream a piece of text; a later text block of the same response (after a tool
        use or a thinking block) streams a blank line first, as `Message.text` joins them."""
        if not text:
            return
        if self._text_part is not None and self._text_part is not part:
            self._on_text(PARAGRAPH_BREAK)
        self._text_part = part
        part.pieces.append(text)
        self._on_text(text)

    @property
    def started(self) -> bool:
        return self._started

    def finish(self, settings: ProviderSettings) -> AssistantTurn:
        if not self._stopped:
            raise stream_incomplete_error(settings)
        blocks = [self._parts[index].block() for index in sorted(self._parts)]
        content = tuple(block for block in blocks if block is not None)
        return AssistantTurn(Message("assistant", content), self._stop_reason or "end_turn", self._usage)
