"""What the two SDK-backed providers share: the key check, one client per event loop, and the
one place where an SDK's failures become our `ProviderError`s.

A subclass says how to build the request, how to stream it into its turn builder, how to make a
client, how to list its models, and how to read its SDK's exception; `complete` and
`served_models` are the same for both.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, ClassVar, Protocol

import httpx2

from levelcode.core.messages import AssistantTurn, Message, ToolShape
from levelcode.providers.base import ProviderSettings
from levelcode.providers.failures import ApiFailure, missing_key_error, provider_error
from levelcode.providers.loop_client import LoopBoundClient

LIST_SECONDS = 10.0  # `/model` waits this long for the list, asked once (no retries)
MAX_LISTED = 2_000  # names kept from a server's list: more is a server misbehaving
NO_LIST = frozenset({404, 405, 501})  # how a server without `GET …/models` answers


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
        except (self.api_error, httpx2.HTTPError) as exc:
            raise provider_error(self._failure_of(exc, builder.started), self._settings) from exc
        return builder.finish(self._settings)

    async def served_models(self) -> list[str] | None:
        """The model names the endpoint's `GET …/models` lists, in its order (at most
        `MAX_LISTED`); None when it has no such list. Raises ProviderError."""
        client = self._clients.get().with_options(max_retries=0, timeout=LIST_SECONDS)
        names: list[str] = []
        try:
            async for model in self._list_models(client):
                if isinstance(model.id, str):
                    names.append(model.id)
                if len(names) >= MAX_LISTED:
                    break
        except (self.api_error, httpx2.HTTPError) as exc:
            failure = self._failure_of(exc, False)
            if failure.status in NO_LIST:
                return None
            raise provider_error(failure, dataclasses.replace(self._settings, max_retries=0)) from exc
        return names

    def _failure_of(self, exc: Exception, started: bool) -> ApiFailure:
        if isinstance(exc, httpx2.HTTPError):  # a transport error the SDK let through unwrapped
            return ApiFailure(None, f"{type(exc).__name__}: {exc}", mid_stream=started)
        return self._failure(exc, mid_stream=started)

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
    def _list_models(self, client: Any) -> AsyncIterator[Any]: ...

    @abstractmethod
    def _failure(self, exc: Any, *, mid_stream: bool) -> ApiFailure: ...


async def _close_client(client: Any) -> None:
    await client.close()
