"""The MCP protocol over any transport: JSON-RPC messages, the session with its bounded waits, the
handshake of both protocol eras, and results made into what the model gets.

Never owns a process or a socket (the transports do), and never imports anything else of mcp.
"""
