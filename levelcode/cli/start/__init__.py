"""What every session's start does, for the REPL and `run` alike: the light start (settings,
provider key, the user's own servers spawned early), the saved session to go on with, the flags
an organisation's policy forbids, the sandbox chosen, the debug log, and one chat's parts.

Imported by the commands that start a session; never draws on the terminal itself (repl/ does),
and imports nothing heavy before the user's servers are on their way.
"""
