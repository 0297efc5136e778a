"""What may run, and how: the one launch gate (G1) every caller passes a server through — the REPL,
`run`, `mcp trust`, `mcp login`, `mcp list` and `mcp get`, each with its own approver (gate.py);
what a launch runs (plan.py, entries.py, interpreters.py read the words; inspection.py and
importable_files.py find and hash the files), its fingerprint and the trust store (trust.py,
trust_store.py), the one door the CLI asks trust questions through (workspace_trust.py);
whether and how it is boxed (server_box.py decides, sandboxed_launch.py wraps);
the launch card (launch_card.py, card_summary.py); the exact process a stdio server starts as
(resolve.py, with connect_options.py); and a server's status as the gate and the hub record it.

Never starts, contacts or stops a server (live/ does), never asks anyone but the approver it is
given, never words anything for a screen (the cards' content is launch_card.py's, the words
ui/mcp_words.py's), and never lets a repository's server start on anything but an approval of
exactly what would run; with nobody to ask, it holds the server back. plan.py, entries.py,
interpreters.py, trust.py, server_box.py, card_summary.py, launch_card.py and status.py are
pure: plain data in and out, never a process, a socket, a file or a terminal.
"""
