"""server-everything as a configured server, over stdio or Streamable HTTP (on 127.0.0.1)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tests.support.http_servers import everything, running
from tests.support.servers import node_server

TRANSPORTS = ("stdio", "http")


@contextlib.contextmanager
def everything_entry(transport: str, **keys: Any) -> Iterator[dict[str, Any]]:
    """The settings entry of a server-everything reachable that way (an HTTP one runs meanwhile)."""
    if transport == "stdio":
        yield {"command": node_server("mcp-server-everything"), **keys}
        return
    with running(everything("streamableHttp")) as server:
        yield {"url": server.url, **keys}
