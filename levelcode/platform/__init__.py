"""The I/O every layer above may use: where LevelCode keeps its files (paths.py), private and
locked JSON files, reading the settings and the organisation's policy files, process groups and
pipes, saved results, opening a path beneath a folder, workspace identity and its servers file.

Imports only policy and core; never decides a rule (policy/ does) and never imports a layer
above it. Named `platform` inside `levelcode`: absolute imports keep the standard library's
`platform` module the one `import platform` finds (open_beneath.py uses it).
"""
