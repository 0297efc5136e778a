"""A provider whose SDK is imported when it is first needed — or ahead of that, in a worker
thread (`warm`) — so a session can show its prompt before the SDK (the largest import LevelCode
has) is loaded. Behaves as the provider it stands for; the key was checked before it was made.
`switch` points it at another model (`/model`): every holder of it follows from the next request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from levelcode.core.messages import AssistantTurn, Message, ToolShape
from levelcode.providers.base import ListsModels, Provider, ProviderSettings
from levelcode.providers.factory import close_provider, make_provider


class LazyProvider:
    def __init__(self, settings: ProviderSettings) -> None:
        self._settings = settings
        self._made: asyncio.Future[Provider] | None = None
        self._retired: list[asyncio.Future[Provider]] = []  # made for earlier models; closed at the end

    @property
    def settings(self) -> ProviderSettings:
        return self._settings

    def switch(self, settings: ProviderSettings) -> None:
        """Talk to `settings.model` from the next request on. The provider made for the model
        before is closed with this one (a request it still serves finishes first)."""
        if self._made is not None:
            self._retired.append(self._made)
        self._settings, self._made = settings, None

    def warm(self) -> None:
        """Start importing the SDK and making the provider in a worker thread (needs a loop)."""
        if self._made is None:
            self._made = asyncio.ensure_future(asyncio.to_thread(make_provider, self._settings))

    async def provider(self) -> Provider:
        self.warm()
        assert self._made is not None
        return await asyncio.shield(self._made)  # an aborted turn does not abort the import

    async def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolShape],
        on_text: Callable[[str], None],
    ) -> AssistantTurn:
        provider = await self.provider()
        return await provider.complete(system=system, messages=messages, tools=tools, on_text=on_text)

    async def served_models(self) -> list[str] | None:
        """What the endpoint lists (`ListsModels`); None for a provider that cannot ask."""
        provider = await self.provider()
        return await provider.served_models() if isinstance(provider, ListsModels) else None

    async def aclose(self) -> None:
        made = [*self._retired, *([self._made] if self._made is not None else [])]
        self._retired, self._made = [], None
        for future in made:
            if not future.done():
                await asyncio.gather(future, return_exceptions=True)
            if not future.cancelled() and future.exception() is None:
                await close_provider(future.result())
