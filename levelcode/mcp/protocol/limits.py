"""Limits every transport shares, apart from the transports themselves: the connection options
(connect_options.py) need them before anything of the protocol is imported, since the early start
(mcp/live/early_start.py) builds those options before the event loop and the protocol are loaded."""

PURE = True

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # one message from a server, on any transport
DEFAULT_HINTED_PROBE_SECONDS = 5.0  # a server remembered as modern that stays silent is re-tried as legacy
