"""The stdio transport and its process care, one concern a module:

- spawn.py: the one way a server is spawned (its own session and process group, the
  parent-death signal, the watchdog told), with no event loop needed;
- process.py: a spawned server joined to the event loop, whoever spawned it: a `ChildProcess`
  (platform/subprocess_pipes.py), as a shell command the loop spawned is;
- pipe_transport.py: a server's message stream, its end reported one way, its group ended on close;
- framing.py, exit_lines.py (pure): lines under a size cap, the stderr lines that say why a
  server died;
- reaper.py, watchdog.py: no server outlives LevelCode, even after a SIGKILL;
- launch_spec.py: what one server runs, as plain data.

Speaks to the session through the protocol's transport seam. Never decides what may start (the
launch gate does), never resolves a launch or reads configuration (mcp/launch/, mcp/config/),
and never imports the MCP SDK.
"""
