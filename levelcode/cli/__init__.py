"""The `levelcode` commands: the REPL, `run`, `mcp …` and `sandbox`; wires the layers together."""
