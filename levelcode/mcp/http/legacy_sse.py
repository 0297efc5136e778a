"""The legacy HTTP+SSE transport (MCP 2024-11-05): one long GET stream that first names, in an
`endpoint` event, where to POST; every answer and server message then arrives on that stream.

Used for `"type": "sse"` entries and as the fallback when a server refuses a POSTed `initialize`
the way such servers do. The POST endpoint must stay on the server's origin (its headers go
there); when the stream ends the whole connection is over. Reaches its transport only through
the `StreamLink` it is handed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import httpx2

from levelcode.core.errors import TransportError
from levelcode.mcp.http.origin import resolve_within_origin, shown_url
from levelcode.mcp.http.sse import Oversized, SseDecoder
from levelcode.mcp.http.stream_link import StreamLink
from levelcode.mcp.http.wire import (
    StreamDropped,
    authorization_refusal,
    exchange,
    peer_address,
    redirect_refusal,
    stream_chunks,
)
from levelcode.mcp.protocol import jsonrpc


class LegacySseChannel:
    def __init__(self, link: StreamLink) -> None:
        self.link = link
        self.client = link.client()
        self.deliver = link.receive
        self.post_url: str | None = None
        self._endpoint: asyncio.Future[str] | None = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def server(self) -> str:
        return self.link.server

    async def open(self, headers: Mapping[str, str]) -> None:
        """GET the event stream and wait (within the connect timeout) for its `endpoint` event."""
        self._endpoint = asyncio.get_running_loop().create_future()
        self._reader = self.link.spawn(self._read({**headers, "Accept": "text/event-stream"}))
        try:
            self.post_url = await asyncio.wait_for(
                asyncio.shield(self._endpoint), self.link.endpoint.connect_timeout
            )
        except TimeoutError:
            self._reader.cancel()
            raise TransportError(
                "the server's event stream never said where to send messages", server=self.server
            ) from None

    async def post(self, message: Mapping[str, object], body: bytes, headers: Mapping[str, str]) -> None:
        if self.post_url is None:
            raise TransportError("the event stream is not open", server=self.server)
        sent = {**headers, "Content-Type": "application/json"}
        async with exchange(
            self.client, "POST", self.post_url, server=self.server, headers=sent, body=body
        ) as response:
            self.link.note(
                f"POST {message.get('method', 'response')} → {response.status_code} {response.reason_phrase}"
            )
            if response.status_code in (401, 403):
                challenge = response.headers.get("www-authenticate")
                raise authorization_refusal(
                    self.server, response.status_code, challenge, peer=peer_address(response)
                )
            refusal = redirect_refusal(response, server=self.server)
            if refusal is not None:
                raise refusal
            if response.status_code >= 300:
                raise TransportError(
                    f"HTTP {response.status_code} {response.reason_phrase}", server=self.server
                )

    async def _read(self, headers: Mapping[str, str]) -> None:
        url = self.link.endpoint.url
        try:
            async with exchange(self.client, "GET", url, server=self.server, headers=headers) as response:
                self.link.note(f"GET (event stream) → {response.status_code} {response.reason_phrase}")
                _check_stream(response, self.server)
                await self._events(response)
            error = TransportError("the server closed its event stream", server=self.server)
        except StreamDropped:
            error = TransportError("the server's event stream broke off", server=self.server)
        except TransportError as exc:
            error = exc
        if self._endpoint is not None and not self._endpoint.done():
            self._endpoint.set_exception(error)
        else:
            self.link.fail(error)

    async def _events(self, response: httpx2.Response) -> None:
        decoder = SseDecoder(self.link.endpoint.max_message_bytes)
        async for chunk in stream_chunks(response, server=self.server):
            for item in decoder.feed(chunk):
                if isinstance(item, Oversized):
                    self.deliver(jsonrpc.Malformed("message over the size limit", jsonrpc.find_id(item.head)))
                elif item.event == "endpoint":
                    self._found_endpoint(item.data.strip())
                elif item.event == "message":
                    self.deliver(jsonrpc.parse_line(item.data.encode("utf-8")))

    def _found_endpoint(self, reference: str) -> None:
        if self._endpoint is None or self._endpoint.done():
            return
        target = resolve_within_origin(self.link.endpoint.url, reference)
        if target is None:
            self._endpoint.set_exception(
                TransportError(
                    f"the server asked for messages to go to another origin ({shown_url(reference)}); "
                    "LevelCode sends them only to the configured server",
                    server=self.server,
                )
            )
        else:
            self._endpoint.set_result(target)


def _check_stream(response: httpx2.Response, server: str) -> None:
    kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
    if response.status_code in (401, 403):
        challenge = response.headers.get("www-authenticate")
        raise authorization_refusal(server, response.status_code, challenge, peer=peer_address(response))
    if response.status_code != 200 or kind != "text/event-stream":
        raise TransportError(
            f"neither a Streamable HTTP nor an HTTP+SSE server answers at this URL "
            f"(GET → HTTP {response.status_code}{', ' + kind if kind else ''})",
            server=server,
        )
