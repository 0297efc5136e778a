"""The `levelcode mcp …` commands: list, get, call, add, remove, import, login, trust, search and
the content commands, each imported only when it is the one typed.

The parser (parser.py) imports only argparse and constants; never imports a command's module
before its action is chosen (`mcp list` is timed from the first import).
"""
