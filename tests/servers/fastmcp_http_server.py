"""A remote MCP server built with FastMCP (the standalone `fastmcp` package, not the SDK's own
MCPServer), for the HTTP transport tests: `python fastmcp_http_server.py PORT [--sse]`.

Serves on 127.0.0.1 only. Tools: `echo` and `add`, answering as sdk_http_server.py's do.
"""

from __future__ import annotations

import argparse

from fastmcp import FastMCP


def build() -> FastMCP:
    server = FastMCP("fastmcp-http-test")

    @server.tool
    def echo(message: str) -> str:
        """Echo the message back."""
        return f"Echo: {message}"

    @server.tool
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return f"{a} + {b} = {a + b}"

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--sse", action="store_true", help="the legacy HTTP+SSE transport")
    args = parser.parse_args()
    transport = "sse" if args.sse else "http"
    build().run(transport, host="127.0.0.1", port=args.port, show_banner=False, log_level="warning")


if __name__ == "__main__":
    main()
