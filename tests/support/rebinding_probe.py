"""Run inside a private network and mount namespace (tests/mcp/http/oauth/test_address_rebinding.py
sets it up): the namespace's loopback also carries a public address and the cloud metadata
service's, so "remote" and "internal" listeners both live in it and nothing leaves the machine;
its /etc/hosts is a file the test wrote, which the system's own lookups read afresh each time.

`python -m tests.support.rebinding_probe SCENARIO HOSTS_FILE` prints one JSON line: which
listeners a request landed on, and what LevelCode said.
- `second-lookup`: the sign-in's own lookup (its resolver seam) answers the public address for
  meta.remote.test; any second lookup (the system's, through the hosts file) answers 127.0.0.1.
- `server-rebinds`: a remote MCP server on the public address answers 401 naming its metadata at
  the cloud metadata service, then makes its own name resolve to a private address (as a
  zero-TTL DNS answer would); LevelCode connects with the system's lookups throughout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

PUBLIC = "93.184.215.14"
METADATA_SERVICE = "169.254.169.254"
PORT = 8080


async def listen(address: str, name: str, landed: list[str], then: object = None) -> asyncio.Server:
    """Answers anything: a JSON document, or (`then` callable) a 401 challenge, then calls it."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        await reader.readexactly(length)
        landed.append(name)
        if callable(then):
            status, extra = (
                "401 Unauthorized",
                f'WWW-Authenticate: Bearer resource_metadata="http://{METADATA_SERVICE}:{PORT}/latest/meta-data/"\r\n',
            )
            then()
        else:
            status, extra = "200 OK", ""
        body = json.dumps({"answered_by": name}).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    return await asyncio.start_server(answer, address, PORT)


async def second_lookup() -> dict[str, object]:
    from levelcode.mcp.http.oauth.requests import fetch_document, oauth_client

    async def resolve(host: str, port: int) -> Sequence[str]:
        return [PUBLIC]  # the sign-in's own lookup: a public address, which the guard lets through

    landed: list[str] = []
    servers = [await listen(PUBLIC, "public", landed), await listen("127.0.0.1", "internal", landed)]
    try:
        async with oauth_client("https://mcp.remote.test/mcp", resolve) as http:
            document = await fetch_document(http, f"http://meta.remote.test:{PORT}/.well-known/x")
        return {"landed": landed, "said": json.dumps(document)}
    except Exception as exc:
        return {"landed": landed, "said": f"{type(exc).__name__}: {exc}"}
    finally:
        for server in servers:
            server.close()


async def server_rebinds(hosts: Path) -> dict[str, object]:
    from levelcode.mcp.config.specs import HttpServerSpec, Provenance
    from levelcode.mcp.launch.connect_options import ConnectOptions
    from levelcode.mcp.live.connection import connect
    from levelcode.mcp.protocol.sign_in import SignIn

    def rebind() -> None:  # written in place: the bind mount shows the same file
        hosts.write_text(hosts.read_text().replace(PUBLIC, "10.0.0.7"))

    landed: list[str] = []
    servers = [
        await listen(PUBLIC, "mcp server", landed, then=rebind),
        await listen(METADATA_SERVICE, "metadata service", landed),
    ]
    spec = HttpServerSpec("remote", f"http://mcp.remote.test:{PORT}/mcp", Provenance("user", "/probe"))
    options = ConnectOptions(workspace=hosts.parent, sign_in=SignIn(store_dir=hosts.parent / "state"))
    try:
        connection = await connect(spec, options)
        await connection.close()
        return {"landed": landed, "said": "connected"}
    except Exception as exc:
        return {"landed": landed, "said": f"{type(exc).__name__}: {exc}"}
    finally:
        for server in servers:
            server.close()


def main(argv: list[str]) -> None:
    scenario, hosts = argv[0], Path(argv[1])
    outcome = asyncio.run(second_lookup() if scenario == "second-lookup" else server_rebinds(hosts))
    print(json.dumps(outcome))


if __name__ == "__main__":
    main(sys.argv[1:])
