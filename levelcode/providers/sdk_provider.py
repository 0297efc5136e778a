"""What the two SDK-backed providers share: the key check, one client per event loop, and the
one place where an SDK's failures become our `ProviderError`s.

A subclass says how to build the request, how to stream it into its turn builder, how to make a
client, and how to read its SDK's exception; `complete` is the same for both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

import httpx2

from levelcode.core.messages import AssistantTurn, Message, ToolShape
from levelcode.providers.base import ProviderSettings
from levelcode.providers.failures import ApiFailure, missing_key_error, provider_error
from levelcode.providers.loop_client import LoopBoundClient


class TurnBuilder(Protocol):
    @property
    def started(self) -> bool: ...

    def finish(self, settings: ProviderSettings) -> AssistantTurn: ...


class SdkProvider(ABC):
    api_error: ClassVar[type[Exception]]  # the SDK's base exception, translated in `complete`

    def __init__(self, settings: ProviderSettings) -> None:
        if not settings.api_key:
            raise missing_key_error(settings)
        self._settings = settings
        self._clients: LoopBoundClient[Any] = LoopBoundClient(self._new_client, _close_client)

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
        builder = self._builder(on_text)
        try:
            await self._stream_into(builder, self._request(system, messages, tools))
        except self.api_error as exc:
            raise provider_error(self._failure(exc, mid_stream=builder.started), self._settings) from exc
        except httpx2.HTTPError as exc:  # a transport error the SDK let through unwrapped
            failure = ApiFailure(None, f"{type(exc).__name__}: {exc}", mid_stream=builder.started)
            raise provider_error(failure, self._settings) from exc
        return builder.finish(self._settings)

    async def aclose(self) -> None:
        await self._clients.aclose()

    @abstractmethod
    def _builder(self, on_text: Callable[[str], None]) -> TurnBuilder: ...

    @abstractmethod
    async def _stream_into(self, builder: Any, request: dict[str, Any]) -> None: ...

    @abstractmethod
    def _request(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolShape]
    ) -> dict[str, Any]: ...

    @abstractmethod
    def _new_client(self) -> Any: ...

    @abstractmethod
    def _failure(self, exc: Any, *, mid_stream: bool) -> ApiFailure: ...


async def _close_client(client: Any) -> None:
    await client.close()
