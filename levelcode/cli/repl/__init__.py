"""The interactive session: its entry, the prompt loop, slash commands, the input line, what a
message mentions, `!cmd` lines, the servers' prompts and resources, and who answers a server.

Builds on start/ for the session itself; never starts a session any other way than start/ does.
"""
