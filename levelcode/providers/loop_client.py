"""One SDK client per event loop: its connection pool is reused across turns, but never carried into
another loop (an HTTP connection opened on a closed loop cannot be used again).

Knows nothing about any SDK: it is given how to make and how to close a client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

ClientT = TypeVar("ClientT")


class LoopBoundClient(Generic[ClientT]):
    def __init__(self, make: Callable[[], ClientT], close: Callable[[ClientT], Awaitable[None]]) -> None:
        self._make = make
        self._close = close
        self._client: ClientT | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> ClientT:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._make()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await self._close(client)
        self._loop = None
