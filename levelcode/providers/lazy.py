"""A provider whose SDK is imported when it is first needed — or ahead of that, in a worker
thread (`warm`) — so a session can show its prompt before the SDK (the largest import LevelCode
has) is loaded. Behaves as the provider it stands for; the key was checked before it was made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from levelcode.core.messages import AssistantTurn, Message, ToolShape
from levelcode.providers.base import Provider, ProviderSettings
from levelcode.providers.factory import close_provider, make_provider


class LazyProvider:
    def __init__(self, settings: ProviderSettings) -> None:
        self._settings = settings
        self._made: asyncio.Future[Provider] | None = None

    @property
    def settings(self) -> ProviderSettings:
        return self._settings

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

    async def aclose(self) -> None:
        if self._made is None:
            return
        if not self._made.done():
            await asyncio.gather(self._made, return_exceptions=True)
        if not self._made.cancelled() and self._made.exception() is None:
            await close_provider(self._made.result())
