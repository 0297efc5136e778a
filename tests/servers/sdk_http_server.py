"""A remote MCP server built with the official Python SDK (`MCPServer`, formerly FastMCP), for the
HTTP transport tests: `python sdk_http_server.py PORT [--sse] [--json] [--stateless] [--oauth ISSUER]`.

Serves on 127.0.0.1 only. Tools: `echo`, `add`, and `whoami` (which reports whether the request
carried the `X-Api-Key` the test expects, so a test can see headers arrive without printing them),
and `ask_name`, which asks the user for a name through a 2026-07-28 input request (an
`input_required` result) and reports the answer; `ask_token` asks for an API token the same way
and reports only its SHA-256 (a test sees it arrive without it being printed). Also instructions,
a resource `test://greeting` and a prompt `greet`, for the tests of what servers offer beyond
tools in that protocol era.
With `--cache-ms N` its lists and reads carry the caching hints of 2026-07-28 (`ttlMs` N, lists
"public", reads "private"), and `test://reads` answers `read K`, K counting the reads it served,
so a test sees which reads reached it. `test://note` holds text that the `edit_note` tool changes;
each change is published as a resource update (2026-07-28 `subscriptions/listen` streams).
`test://moving` changes the moment it is read: each read answers `version K` and publishes the
resource's update before the answer leaves — the worst moment for a client that would ask to
hear of changes only after reading.
With `--oauth ISSUER` it is an OAuth protected resource, as the SDK builds one: protected-resource
metadata naming ISSUER, 401 with `resource_metadata` without a token, and every token checked by
RFC 7662 introspection at ISSUER (active, for this resource, with the `mcp` scope).
"""

from __future__ import annotations

import argparse
import hashlib
import os

import httpx2
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp_types import CallToolResult, InputRequiredResult, TextContent

INSTRUCTIONS = "Greet people by name. (sdk-http-test instructions)"


class IntrospectingVerifier:
    """Asks the authorization server about every token (RFC 7662), as a resource server may."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer

    async def verify_token(self, token: str) -> AccessToken | None:
        async with httpx2.AsyncClient(timeout=10) as client:
            answer = await client.post(f"{self.issuer}/introspect", data={"token": token})
        doc = answer.json()
        if not doc.get("active"):
            return None
        return AccessToken(
            token=token,
            client_id=str(doc["client_id"]),
            scopes=str(doc.get("scope", "")).split(),
            expires_at=doc.get("exp"),
            resource=doc.get("aud"),
        )


def cache_hints(cache_ms: int | None) -> dict[str, CacheHint] | None:
    if cache_ms is None:
        return None
    lists = CacheHint(cache_ms, "public")
    return {
        "tools/list": lists,
        "resources/list": lists,
        "resources/templates/list": lists,
        "prompts/list": lists,
        "resources/read": CacheHint(cache_ms, "private"),
    }


def build(port: int = 0, issuer: str | None = None, cache_ms: int | None = None) -> MCPServer:
    bus = InMemorySubscriptionBus()  # the server's own, so a resource can publish to it
    if issuer is None:
        server = MCPServer(
            "sdk-http-test",
            instructions=INSTRUCTIONS,
            cache_hints=cache_hints(cache_ms),  # type: ignore[arg-type]
            subscriptions=bus,
        )
    else:
        auth = AuthSettings(
            issuer_url=issuer,  # type: ignore[arg-type]
            resource_server_url=f"http://127.0.0.1:{port}/mcp",  # type: ignore[arg-type]
            required_scopes=["mcp"],
            validate_token_resource=True,
        )
        server = MCPServer(
            "sdk-http-test",
            instructions=INSTRUCTIONS,
            token_verifier=IntrospectingVerifier(issuer),
            auth=auth,
            subscriptions=bus,
        )

    @server.resource("test://greeting", mime_type="text/plain")
    def greeting() -> str:
        return "Hello from the SDK server."

    reads = [0]
    note = ["first version of the note"]

    @server.resource("test://reads", mime_type="text/plain")
    def counted() -> str:
        reads[0] += 1
        return f"read {reads[0]}"

    @server.resource("test://note", mime_type="text/plain")
    def current_note() -> str:
        return note[0]

    moves = [0]

    @server.resource("test://moving", mime_type="text/plain")
    async def moving() -> str:
        moves[0] += 1
        await bus.publish(ResourceUpdated(uri="test://moving"))
        return f"version {moves[0]}"

    @server.tool()
    async def edit_note(text: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Replace the note's text; subscribers are told the resource changed."""
        note[0] = text
        await ctx.notify_resource_updated("test://note")
        return "note edited"

    @server.prompt()
    def greet(name: str) -> str:
        """Greet someone."""
        return f"Please greet {name} warmly."

    @server.tool()
    def ask_name(ctx: Context) -> CallToolResult | InputRequiredResult:  # type: ignore[type-arg]
        """Ask the user for their name (an input request), then say what came back."""
        answers = ctx.input_responses
        if not answers:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            ask = {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "Your name?", "requestedSchema": schema},
            }
            return InputRequiredResult(input_requests={"name": ask})  # type: ignore[arg-type]
        answer = answers["name"]
        dumped = answer.model_dump(exclude_none=True) if hasattr(answer, "model_dump") else answer
        return CallToolResult(content=[TextContent(type="text", text=f"answer: {dumped}")])

    @server.tool()
    def ask_token(ctx: Context) -> CallToolResult | InputRequiredResult:  # type: ignore[type-arg]
        """Ask the user for an API token (an input request), then say its SHA-256, never the token."""
        answers = ctx.input_responses
        if not answers:
            token = {"type": "string", "title": "API token", "description": "Your service's API token"}
            schema = {"type": "object", "properties": {"api_token": token}, "required": ["api_token"]}
            ask = {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "Connect your account", "requestedSchema": schema},
            }
            return InputRequiredResult(input_requests={"token": ask})  # type: ignore[arg-type]
        answer = answers["token"]
        dumped = answer.model_dump(exclude_none=True) if hasattr(answer, "model_dump") else answer
        typed = str(dumped.get("content", {}).get("api_token", ""))
        digest = hashlib.sha256(typed.encode()).hexdigest()
        return CallToolResult(content=[TextContent(type="text", text=f"token sha256: {digest}")])

    @server.tool()
    def echo(message: str) -> str:
        """Echo the message back."""
        return f"Echo: {message}"

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return f"{a} + {b} = {a + b}"

    @server.tool()
    def whoami(ctx: Context) -> str:  # type: ignore[type-arg]
        """Say whether the expected API key arrived."""
        request = ctx.request_context.request
        headers = getattr(request, "headers", {})
        expected = os.environ.get("EXPECTED_API_KEY")
        return "key ok" if expected and headers.get("x-api-key") == expected else "no key"

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--sse", action="store_true", help="the legacy HTTP+SSE transport")
    parser.add_argument("--json", action="store_true", help="answer POSTs with JSON, not event streams")
    parser.add_argument("--stateless", action="store_true", help="no sessions")
    parser.add_argument("--oauth", metavar="ISSUER", help="require tokens from this authorization server")
    parser.add_argument("--cache-ms", type=int, help="caching hints: ttlMs on lists and reads")
    args = parser.parse_args()
    server = build(args.port, args.oauth, args.cache_ms)
    if args.sse:
        server.run("sse", host="127.0.0.1", port=args.port)
    else:
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=args.port,
            json_response=args.json,
            stateless_http=args.stateless,
        )


if __name__ == "__main__":
    main()
