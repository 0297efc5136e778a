"""A remote MCP server built with FastMCP (the standalone `fastmcp` package, not the SDK's own
MCPServer), for the HTTP transport tests: `python fastmcp_http_server.py PORT [--sse] [--oauth ISSUER]`.

Serves on 127.0.0.1 only. Tools: `echo` and `add`, answering as sdk_http_server.py's do. With
`--oauth ISSUER` it is an OAuth protected resource as FastMCP builds one (RemoteAuthProvider:
protected-resource metadata naming ISSUER, 401s), checking each token by RFC 7662 introspection.
With `--cache-ttl SECONDS` every cacheable result carries FastMCP's caching hint (`ttlMs`,
"private"), and the resource `test://reads` answers `read K`, K counting the reads it served.
"""

from __future__ import annotations

import argparse

from fastmcp import FastMCP


def build(port: int = 0, issuer: str | None = None, cache_ttl: int | None = None) -> FastMCP:
    auth = None
    if issuer is not None:
        from fastmcp.server.auth import RemoteAuthProvider
        from fastmcp.server.auth.providers.introspection import IntrospectionTokenVerifier

        verifier = IntrospectionTokenVerifier(
            introspection_url=f"{issuer}/introspect",
            client_id="fastmcp-resource-server",
            client_secret="unused-by-the-test-authorization-server",
            required_scopes=["mcp"],
        )
        auth = RemoteAuthProvider(
            token_verifier=verifier, authorization_servers=[issuer], base_url=f"http://127.0.0.1:{port}"
        )
    server = FastMCP("fastmcp-http-test", auth=auth, cache_ttl=cache_ttl)
    reads = [0]

    @server.resource("test://reads", mime_type="text/plain")
    def counted() -> str:
        reads[0] += 1
        return f"read {reads[0]}"

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
    parser.add_argument("--oauth", metavar="ISSUER", help="require tokens from this authorization server")
    parser.add_argument("--cache-ttl", type=int, help="caching hints: ttlMs on every cacheable result")
    args = parser.parse_args()
    transport = "sse" if args.sse else "http"
    build(args.port, args.oauth, args.cache_ttl).run(
        transport, host="127.0.0.1", port=args.port, show_banner=False, log_level="warning"
    )


if __name__ == "__main__":
    main()
