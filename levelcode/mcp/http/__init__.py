"""Remote MCP servers: Streamable HTTP (both protocol eras) and the legacy HTTP+SSE transport.

Imported only by the connection factory when a remote server is configured: nothing on the stdio
path or at start-up may import this package's HTTP stack. Never logs headers or tool arguments.
"""
