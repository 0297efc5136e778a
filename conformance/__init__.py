"""LevelCode against the official MCP conformance suite: the client entry point and the runner."""
