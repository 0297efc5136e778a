"""Finding and adding servers from an MCP Registry (its read-only REST API, v0.1): the answers
parsed defensively into small types (documents.py), the rules LevelCode holds them to (rules.py:
exact versions, the package kinds it runs, the runner options it passes, URL templates), the
values a server asks for (inputs.py), a `server.json` made into a server entry (entry.py, remote
ones in remote_entry.py), and the HTTP client (client.py, the one module here that does I/O).

Never writes a file, never starts or contacts a server, and never puts a secret into an entry: a
value the server declares secret becomes a `${VAR}` reference to the user's environment.
"""
