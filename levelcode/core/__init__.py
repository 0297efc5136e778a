"""The shared vocabulary every layer speaks — messages, approvals, tool outcomes, errors, progress,
the wording of a JSON mistake — as plain data and pure functions.

The bottom layer: imports nothing of LevelCode above it, and never reads or writes a file, starts
a process or touches the OS (a test reads every import); the I/O is platform/'s.
"""
