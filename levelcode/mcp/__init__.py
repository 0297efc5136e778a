"""MCP servers beside the built-in tools: configuration, the gates, the servers running now and
the router a tool call falls through to.

Packages, each importing only those below it (tests/test_layers.py holds them to it):

    live      what is running now: hub (one handle per server), connection, runtime
    calls     one tool call's way: router, policy, call card, catalog and caps, deferral
    launch    what may run and how: the launch gate, inspection, fingerprint, sandbox box
    http      Streamable HTTP, legacy SSE and OAuth (imported only for a remote server)
    stdio     spawn, framing, reaping, watchdog
    protocol  JSON-RPC, the session over any transport, handshake, results
    config    the two tiers as plain data with their provenance; edit, import

Never imports agent, ui, cli or tools.
"""
