"""The `levelcode` commands: the REPL, `run`, `mcp …` and `sandbox`; wires the layers together.

Grouped by what the user does: start/ (what every session's start does), repl/ (the interactive
session), mcp/ (the `levelcode mcp` commands), run.py (a headless run), sandbox_command.py; at
the top only what every command shares. Never holds a rule of its own: each decision lives in
the layer below that owns it.
"""
