"""A model provider inside the test's own process, for property tests that need many requests.

It sends nothing over a network, but everything up to the wire is the real thing: each request
body is built by the real provider's own `_request` (the same translation and cache markers that go
over HTTP), checked by the fake API of that shape exactly as the HTTP fakes check it
(tests/fakes/fake_anthropic.py, fake_openai.py: pairing, roles, empty content, …; a refusal
becomes the same `ProviderError` a 400 would), recorded, and answered by `answer(body)`:
a `Reply` (its text streamed through `on_text`, its calls as tool uses, usage as the fake API
would report it), a `Fail` (the `ProviderError` that status would give), or a `Reply` with
`hang=True` (its text streamed, then it waits until cancelled, as a stream held open does).

The few tests that must see real HTTP use the fake servers themselves (`fake_anthropic`,
`fake_openai`) with the same `answer`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from levelcode.core.messages import AssistantTurn, Block, Message, TextBlock, ToolShape, ToolUse, Usage
from levelcode.providers.anthropic_provider import AnthropicProvider
from levelcode.providers.base import ProviderName, ProviderSettings
from levelcode.providers.failures import ApiFailure, provider_error
from levelcode.providers.openai_provider import OpenAIProvider
from tests.fakes.fake_anthropic import AnthropicShape
from tests.fakes.fake_openai import OpenAIShape
from tests.fakes.scripted_server import DEFAULT_API_KEY, Fail, Reply

Answer = Callable[[Mapping[str, Any]], Reply | Fail]
MODELS: Mapping[ProviderName, str] = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-5.5"}


class WireProvider:
    def __init__(
        self, name: ProviderName, answer: Answer, *, model: str | None = None, **changes: Any
    ) -> None:
        settings = ProviderSettings(name, model or MODELS[name], None, DEFAULT_API_KEY, max_retries=0)
        self._settings = dataclasses.replace(settings, **changes)
        real = AnthropicProvider if name == "anthropic" else OpenAIProvider
        self._real = real(self._settings)  # only its `_request` is used: no client is ever made
        self.shape = AnthropicShape() if name == "anthropic" else OpenAIShape()
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []  # every request, refused or not, in order
        self.usages: list[Usage] = []  # what each answered request reported
        self.hanging = asyncio.Event()  # a hanging reply has sent what it will send
        self._ids = itertools.count()

    @property
    def settings(self) -> ProviderSettings:
        return self._settings

    async def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolShape],
        on_text: Callable[[str], None],
    ) -> AssistantTurn:
        body = self._real._request(system, messages, tools)
        body["stream"] = True
        self.bodies.append(body)
        refused = self.shape.validate(body)
        if refused is not None:
            raise provider_error(ApiFailure(refused.status, refused.message, refused.code), self._settings)
        decided = self.answer(body)
        if isinstance(decided, Fail):
            raise provider_error(ApiFailure(decided.status, decided.message), self._settings)
        await asyncio.sleep(0)  # a real request always yields to the loop at least once
        if decided.text:
            on_text(decided.text)
        if decided.hang:
            self.hanging.set()
            await asyncio.Event().wait()
        usage = self._usage(decided, body)
        self.usages.append(usage)
        return AssistantTurn(self._message(decided), _stop_reason(decided), usage)

    def _message(self, reply: Reply) -> Message:
        prefix = "toolu_" if self._settings.provider == "anthropic" else "call_"
        blocks: list[Block] = [TextBlock(reply.text)] if reply.text else []
        blocks += [
            ToolUse(call.id or f"{prefix}{next(self._ids)}", call.name, call.input)
            for call in reply.tool_calls
        ]
        return Message("assistant", tuple(blocks))

    def _usage(self, reply: Reply, body: Mapping[str, Any]) -> Usage:
        reported = self.shape.response(reply, body)["usage"]
        if self._settings.provider == "openai":
            return Usage(reported["prompt_tokens"], reported["completion_tokens"])
        return Usage(
            reported["input_tokens"],
            reported["output_tokens"],
            reported["cache_read_input_tokens"],
            reported["cache_creation_input_tokens"],
        )


def system_text(body: Mapping[str, Any]) -> str:
    """A request's system prompt, in either shape (Anthropic's may be a list of blocks)."""
    system = body.get("system")
    if isinstance(system, list):
        return "".join(block.get("text", "") for block in system)
    if isinstance(system, str):
        return system
    first = body["messages"][0]
    return str(first.get("content")) if first.get("role") == "system" else ""


def _stop_reason(reply: Reply) -> str:
    return reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
