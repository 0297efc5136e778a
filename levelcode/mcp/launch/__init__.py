"""What may run, and how: the one launch gate (G1) every caller passes a server through — the REPL,
`run`, `mcp trust`, `mcp login`, `mcp list` and `mcp get`, each with its own approver (gate.py) —
and the exact process a stdio server starts as (resolve.py).

Never starts, contacts or stops a server (the hub does), never asks anyone but the approver it is
given, never words anything for a screen (the cards' content is mcp/launch/launch_card.py's, the words
ui/mcp_words.py's), and never lets a repository's server start on anything but an approval of
exactly what would run; with nobody to ask, it holds the server back.
"""
