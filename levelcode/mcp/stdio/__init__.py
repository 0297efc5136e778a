"""The stdio transport and its process care: spawning a server in its own process group with a
minimal environment, framing under a size cap, and reaping every group — even after a SIGKILL.

Speaks to the session through the protocol's transport seam; never decides what may start (the
launch gate does) and never imports the MCP SDK.
"""
