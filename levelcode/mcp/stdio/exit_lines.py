"""Which of a dead server's stderr lines say why it died: the ones quoted when it is reported.

The last lines are the wrong ones for the runtimes servers are written in. Node ends an uncaught
error with its stack's innermost frames and its own version; Python ends with the error, after
the frames; many servers print a usage line first and nothing after. So:

- a Python traceback: its last error line, and where it was raised (the innermost `File` line);
- a Node error: the first `Error: …` line (`TypeError: …`, `Error [ERR_…]: …`) and its throw site,
  the first stack frame outside Node's own internals (none, when all of them are inside);
- anything else: the first lines;
- and before all of them, the sandbox's egress refusals (`[sandbox] refused a connection to …`),
  the newest last: a server that could not fetch its package says why in the package manager's
  words only after them ("403 Forbidden"), if at all.

Pure: given lines, returns lines (at most `MAX_LINES`, each cut to `MAX_LINE_CHARS`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from levelcode.sandbox.egress_rules import REFUSED

PURE = True

MAX_LINES = 3
MAX_LINE_CHARS = 300

# a traceback's header, after the border an exception group draws around it ("  | ", "  + ")
_PYTHON_TRACEBACK = re.compile(r"^([\s|+]*)(?:Exception Group )?Traceback \(most recent call last\):")
_PYTHON_FRAME = re.compile(r'^  File "[^"]*", line \d+')
_NODE_ERROR = re.compile(r"^(Uncaught )?([A-Z]\w*)?(Error|Exception)( \[[A-Z0-9_]+\])?: ")
_NODE_FRAME = re.compile(r"^\s+at ")


def why_it_ended(lines: Sequence[str]) -> tuple[str, ...]:
    """The lines that say why, in reading order; () when the server wrote nothing."""
    kept = [line.rstrip() for line in lines if line.strip()]
    refused = [line for line in kept if line.startswith(REFUSED)][-MAX_LINES:]
    rest = [line for line in kept if not line.startswith(REFUSED)]
    chosen = [*refused, *(_python(rest) or _node(rest) or rest[:MAX_LINES])]
    return tuple(_cut(line.strip()) for line in chosen[:MAX_LINES])


def _python(lines: list[str]) -> list[str]:
    """The last traceback's error (the first line after its frames at the header's own indent)
    and its innermost frame; a traceback whose header was lost is read from its frames."""
    headers = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _PYTHON_TRACEBACK.match(line))]
    if headers:
        start, border = headers[-1][0] + 1, headers[-1][1].replace("+", "|")
    elif any(_PYTHON_FRAME.match(line) for line in lines):
        start, border = 0, ""
    else:
        return []
    found: list[str] = []
    frame: str | None = None
    for line in lines[start:]:
        inner = line[len(border) :] if line.startswith(border) else ""
        if _PYTHON_FRAME.match(inner):
            frame = inner
        elif frame is not None and inner[:1].strip():
            found, frame = [inner, frame], None
    return found


def _node(lines: list[str]) -> list[str]:
    for i, line in enumerate(lines):
        if _NODE_ERROR.match(line):
            frames = [f for f in lines[i + 1 :] if _NODE_FRAME.match(f)]
            own = [f for f in frames if "node:internal" not in f and "(node:" not in f]
            return [line, *own[:1]]  # Node's own frames say where it noticed, not what failed
    return []


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"
