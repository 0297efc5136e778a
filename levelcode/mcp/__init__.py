"""MCP servers beside the built-in tools: configuration, the four gates, the connections and the
hub that owns them, and the router a tool call falls through to.

Parts, each importing only what lies below it: `config` (load, edit, import) and `protocol`
(JSON-RPC, session, handshake, results) at the bottom; `gates` (pure rules) over config; the
transports `stdio` and `http` over protocol; the top-level modules (connection, hub, router,
runtime, stores) over all of them. Never imports agent, ui or cli.
"""
