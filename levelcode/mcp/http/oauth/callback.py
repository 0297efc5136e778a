"""The localhost end of the browser hand-off: a one-shot HTTP listener on 127.0.0.1 that waits for
the authorization server's redirect and hands its query parameters to the sign-in.

Listens on loopback only (RFC 8252 §7.3), answers only its own path, and closes after the first
answer on that path. The page it shows says nothing but whether to go back to the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qsl, urlsplit

CALLBACK_PATH = "/callback"
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>LevelCode</title>"
    "<p>{}</p><p>You can close this tab and go back to the terminal.</p>"
)
_MAX_REQUEST_LINE = 16 * 1024


class CallbackListener:
    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> CallbackListener:
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def answer(self) -> dict[str, str]:
        assert self._answer is not None
        return await asyncio.shield(self._answer)

    def take(self, params: dict[str, str]) -> None:
        """An answer from elsewhere (the user pasted the redirected URL)."""
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(params)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                line = await reader.readline()
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
            status, text = self._handle(line[:_MAX_REQUEST_LINE].decode("latin-1"))
            body = _PAGE.format(text).encode()
            head = f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            writer.write(head.encode() + body)
            await writer.drain()
        except (TimeoutError, OSError, ValueError):
            pass
        finally:
            writer.close()

    def _handle(self, request_line: str) -> tuple[str, str]:
        parts = request_line.split(" ")
        if len(parts) < 2 or parts[0] != "GET":
            return "405 Method Not Allowed", "Not a sign-in answer."
        target = urlsplit(parts[1])
        if target.path != CALLBACK_PATH:
            return "404 Not Found", "Not a sign-in answer."
        params = dict(parse_qsl(target.query, keep_blank_values=True))
        self.take(params)
        if "error" in params:
            return "200 OK", "Sign-in did not complete."
        return "200 OK", "LevelCode received the sign-in."


def params_from_pasted(text: str) -> dict[str, str] | None:
    """The redirected URL (or its query) as pasted by the user; None when it is neither."""
    text = text.strip()
    query = urlsplit(text).query if "://" in text else text.lstrip("?")
    params = dict(parse_qsl(query, keep_blank_values=True))
    return params if "state" in params and ("code" in params or "error" in params) else None
