"""A Python server that dies at start: a log line, then an exception raised from a function, so
Python prints a traceback whose last line is the error."""

import sys


def connect_database() -> None:
    raise RuntimeError("no database at /var/lib/app.db")


print("starting the app server", file=sys.stderr, flush=True)
connect_database()
