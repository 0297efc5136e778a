"""The MCP protocol over any transport: JSON-RPC messages, the session with its bounded waits, the
handshake of both protocol eras, and results made into what the model gets.

Owns no process and no socket (the transports do); imports nothing else of mcp.
"""
