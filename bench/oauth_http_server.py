"""One MCP server over Streamable HTTP (JSON answers, no session) at three addresses, for the OAuth
benchmark: `/open/mcp` takes anyone, `/bearer/mcp` a bearer token, `/dpop/mcp` a DPoP-bound token
with its proof. Standard library only, so the three differ only in what a request must carry.

    python bench/oauth_http_server.py PORT BEARER_ISSUER DPOP_ISSUER

A token is checked once by RFC 7662 introspection at its issuer, then remembered (as a resource
server caching introspection would); a DPoP request must carry a proof whose `ath` is the token's.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
import urllib.parse
import urllib.request

TOOLS = {"tools": [{"name": "echo", "description": "Echo a message", "inputSchema": {"type": "object"}}]}
KNOWN: set[str] = set()


def answer(message: dict[str, object]) -> dict[str, object] | None:
    method, params = message.get("method"), message.get("params")
    if "id" not in message:
        return None
    if method == "initialize":
        info = {"name": "bench-oauth", "version": "1"}
        result: object = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
    elif method == "tools/list":
        result = TOOLS
    elif method == "tools/call" and isinstance(params, dict):
        result = {"content": [{"type": "text", "text": str(params.get("arguments", {}).get("message", ""))}]}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not here"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def introspected(issuer: str, token: str) -> bool:
    if token in KNOWN:
        return True
    data = urllib.parse.urlencode({"token": token}).encode()
    with urllib.request.urlopen(f"{issuer}/introspect", data, timeout=10) as reply:
        if json.loads(reply.read()).get("active"):
            KNOWN.add(token)
    return token in KNOWN


def refusal(kind: str | None, headers: dict[str, str], issuers: dict[str, str], origin: str) -> str | None:
    """Why the request may not pass (the WWW-Authenticate to answer), or None."""
    if kind is None:
        return None
    scheme, _, token = headers.get("authorization", "").partition(" ")
    challenge = f'{"DPoP" if kind == "dpop" else "Bearer"} resource_metadata="{origin}/.well-known/oauth-protected-resource/{kind}/mcp"'
    if scheme.lower() != ("dpop" if kind == "dpop" else "bearer") or not introspected(issuers[kind], token):
        return challenge
    if kind == "dpop":
        proof = headers.get("dpop", "").split(".")
        claims = json.loads(base64.urlsafe_b64decode(proof[1] + "==")) if len(proof) == 3 else {}
        ath = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
        if claims.get("ath") != ath:
            return challenge
    return None


async def serve(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, issuers: dict[str, str], origin: str
) -> None:
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            method, path, _ = line.decode().split(" ", 2)
            headers: dict[str, str] = {}
            while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = raw.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            status, extra, payload = route(method, path, headers, body, issuers, origin)
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            )
            writer.write(
                (head + "".join(f"{k}: {v}\r\n" for k, v in extra.items()) + "\r\n").encode() + payload
            )
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    finally:
        writer.close()


def route(
    method: str, path: str, headers: dict[str, str], body: bytes, issuers: dict[str, str], origin: str
) -> tuple[str, dict[str, str], bytes]:
    if method == "GET" and path.startswith("/.well-known/oauth-protected-resource/"):
        kind = path.split("/")[-2]
        doc = {
            "resource": f"{origin}/{kind}/mcp",
            "authorization_servers": [issuers[kind]],
            "scopes_supported": ["mcp"],
        }
        return "200 OK", {}, json.dumps(doc).encode()
    kind = {"/open/mcp": None, "/bearer/mcp": "bearer", "/dpop/mcp": "dpop"}.get(path, "missing")
    if kind == "missing" or method != "POST":
        return "404 Not Found", {}, b"{}"
    challenge = refusal(kind, headers, issuers, origin)
    if challenge is not None:
        return "401 Unauthorized", {"WWW-Authenticate": challenge}, b'{"error": "invalid_token"}'
    reply = answer(json.loads(body))
    return ("202 Accepted", {}, b"") if reply is None else ("200 OK", {}, json.dumps(reply).encode())


async def main() -> None:
    port, bearer, dpop = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    origin = f"http://127.0.0.1:{port}"
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, {"bearer": bearer, "dpop": dpop}, origin), "127.0.0.1", port
    )
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
