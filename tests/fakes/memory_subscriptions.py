"""What the in-memory fault server does with subscriptions, as the spec has a server do it: a
2026-07-28 `subscriptions/listen` stream is subscribed when the server acknowledges it and until
LevelCode cancels it; a 2025-11-25 `resources/subscribe` lasts the connection. An update reaches
only those — there is no replay, so one published while nobody is subscribed is gone.

What a test scripts here: acknowledgements held back until it releases them (`hold`, then
`acknowledge`, in any order, or `confirm` to let one cross LevelCode closing the stream), and
resources that change the moment they are read. What it records: each read of a resource it was
not confirmed to be watching for that connection (`unwatched_reads`) — a change right after such
a read reaches nobody.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.memory_transport import MemoryTransport

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
Tell = Callable[[MemoryTransport, dict[str, Any]], None]


@dataclass
class Listen:
    """One `subscriptions/listen` request LevelCode sent."""

    request_id: object
    wanted: dict[str, Any]  # its `notifications` filter
    transport: MemoryTransport
    acknowledged: bool = False
    cancelled: bool = False

    @property
    def uris(self) -> list[str]:
        return list(self.wanted.get("resourceSubscriptions") or [])


class Subscriptions:
    def __init__(self, tell: Tell) -> None:
        self._tell = tell  # a message to LevelCode on that connection
        self.listens: list[Listen] = []  # every listen request, in the order they came
        self.subscribed: set[tuple[MemoryTransport, str]] = set()  # 2025-11-25
        self.hold = False  # a listen that names resources waits for `acknowledge`
        self.unwatched_reads: list[str] = []
        self._arrived = asyncio.Event()

    def listen(self, request_id: object, params: dict[str, Any], transport: MemoryTransport) -> None:
        wanted = params.get("notifications")
        listen = Listen(request_id, dict(wanted) if isinstance(wanted, dict) else {}, transport)
        self.listens.append(listen)
        self._arrived.set()
        self._arrived = asyncio.Event()
        if not (self.hold and listen.uris):
            self.acknowledge(listen)

    def acknowledge(self, listen: Listen) -> None:
        """Subscribed from now on, and says so first; a stream LevelCode cancelled stays closed."""
        self.confirm(listen)()

    def confirm(self, listen: Listen) -> Callable[[], None]:
        """Subscribed from now on; the acknowledgement is sent when the returned function is
        called — after LevelCode may have closed the stream, as when the two cross on the wire."""
        if listen.cancelled or listen.acknowledged:
            return lambda: None
        listen.acknowledged = True
        params = {"_meta": {SUBSCRIPTION_ID: listen.request_id}, "notifications": listen.wanted}
        ack = _notification("notifications/subscriptions/acknowledged", params)
        return lambda: self._tell(listen.transport, ack)

    def read(self, uri: str, transport: MemoryTransport) -> None:
        """A read of `uri` on that connection: recorded unless a subscription there covers it."""
        streams = (listen for listen in self.open() if listen.transport is transport and listen.acknowledged)
        if not any(uri in listen.uris for listen in streams) and (transport, uri) not in self.subscribed:
            self.unwatched_reads.append(uri)

    def cancelled(self, request_id: object) -> None:
        for listen in self.listens:
            if listen.request_id == request_id:
                listen.cancelled = True

    def open(self) -> list[Listen]:
        return [listen for listen in self.listens if not listen.cancelled]

    async def naming_resources(self, count: int) -> list[Listen]:
        """The first `count` listen requests that named resources, once that many came."""
        async with asyncio.timeout(5):
            while len(named := [listen for listen in self.listens if listen.uris]) < count:
                await self._arrived.wait()
        return named[:count]

    def updated(self, uri: str) -> None:
        """`uri` changed: told on every subscribed stream that names it, and nowhere else."""
        for listen in self.open():
            if listen.acknowledged and uri in listen.uris:
                params = {"_meta": {SUBSCRIPTION_ID: listen.request_id}, "uri": uri}
                self._tell(listen.transport, _notification("notifications/resources/updated", params))
        for transport, subscribed in self.subscribed:
            if subscribed == uri:
                self._tell(transport, _notification("notifications/resources/updated", {"uri": uri}))


def _notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}
