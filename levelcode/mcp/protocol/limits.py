"""Limits every transport shares, apart from the transports themselves: the early spawn
(mcp/early_start.py) needs them before anything of the protocol is imported."""

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # one message from a server, on any transport
