"""A remote MCP server built with the official Python SDK (`MCPServer`, formerly FastMCP), for the
HTTP transport tests: `python sdk_http_server.py PORT [--sse] [--json] [--stateless]`.

Serves on 127.0.0.1 only. Tools: `echo`, `add`, and `whoami` (which reports whether the request
carried the `X-Api-Key` the test expects, so a test can see headers arrive without printing them),
and `ask_name`, which asks the user for a name through a 2026-07-28 input request (an
`input_required` result) and reports the answer. Also instructions, a resource `test://greeting`
and a prompt `greet`, for the tests of what servers offer beyond tools in that protocol era.
"""

from __future__ import annotations

import argparse
import os

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, InputRequiredResult, TextContent


def build() -> MCPServer:
    server = MCPServer("sdk-http-test", instructions="Greet people by name. (sdk-http-test instructions)")

    @server.resource("test://greeting", mime_type="text/plain")
    def greeting() -> str:
        return "Hello from the SDK server."

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
    args = parser.parse_args()
    server = build()
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
