"""The OS sandbox for what LevelCode runs on the model's behalf, built with bubblewrap (`bwrap`).

Sits beside the shared core: imports nothing from agent, ui, cli, tools or mcp, so commands and
the MCP servers that run in the sandbox are confined by the same policy (`policy.py`) and the same
argv wrapper.

Why bubblewrap rather than Landlock: `.git/config` and `.git/hooks` must stay read-only inside a
writable workspace while `git add`/`git commit` still write `.git/objects` and `.git/index`.
Landlock rights are inherited by everything beneath a directory, so a writable workspace makes all
of it writable (and a rename can replace a protected file); only a mount namespace can carve
read-only islands out of a writable tree, and a mount point cannot be renamed or replaced.
`--unshare-net` also closes UDP and abstract unix sockets, which Landlock's TCP rules leave open.
"""
