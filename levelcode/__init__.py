"""LevelCode: a terminal AI coding agent that uses tools from MCP servers beside its own, safely."""

__version__ = "0.1.0"
