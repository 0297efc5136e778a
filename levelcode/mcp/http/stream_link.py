"""What the readers of a remote server's event streams (events.py, legacy_sse.py) and its POSTs
(post_exchange.py) share with the transport that owns them (streamable.py): the endpoint and its
session headers, the open client, and where messages, diagnostic lines, background work and a lost
connection go.

Plain wiring, no I/O of its own: the transport hands its readers this instead of itself, so no
reader reaches into the transport and the transport's files import one another in one direction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass

import httpx2

from levelcode.core.errors import TransportError
from levelcode.mcp.http.endpoint import RemoteEndpoint
from levelcode.mcp.http.session_headers import SessionHeaders
from levelcode.mcp.protocol.jsonrpc import Incoming

Deliver = Callable[[Incoming], None]


@dataclass(frozen=True)
class StreamLink:
    endpoint: RemoteEndpoint
    headers: SessionHeaders
    client: Callable[[], httpx2.AsyncClient]  # the open client; raises the reason once it is closed
    receive: Deliver  # a message the server sent on its own stream
    note: Callable[[str], None]  # a line for the diagnostics an error report shows
    spawn: Callable[[Coroutine[object, object, None]], asyncio.Task[None]]  # ended with the transport
    fail: Callable[[TransportError], None]  # the whole connection is over
    closed: Callable[[], bool]

    @property
    def server(self) -> str:
        return self.endpoint.server
