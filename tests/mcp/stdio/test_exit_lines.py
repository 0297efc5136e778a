"""The stderr lines quoted when a server dies, read from what real runtimes print. Load-bearing
direction: the line naming the error is always among them (for Node and Python, with where it was
thrown), never crowded out by a stack's tail. The second corpus: whatever else a server writes,
its first lines, bounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.stdio.exit_lines import MAX_LINE_CHARS, MAX_LINES, why_it_ended
from levelcode.mcp.stdio.framing import StderrRing

NODE_THROW = """\
/srv/app/index.js:4
  throw new Error("cannot read the config");
  ^

Error: cannot read the config
    at readConfig (/srv/app/index.js:4:9)
    at Object.<anonymous> (/srv/app/index.js:6:1)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at node:internal/main/run_main_module:28:49

Node.js v20.20.2"""

NODE_MODULE_NOT_FOUND = """\
node:internal/modules/esm/resolve:283
    throw new ERR_MODULE_NOT_FOUND(
          ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/app/index.mjs
    at finalizeResolution (node:internal/modules/esm/resolve:283:11)
    at moduleResolve (node:internal/modules/esm/resolve:952:10) {
  code: 'ERR_MODULE_NOT_FOUND',
  url: 'file:///srv/app/node_modules/zod'
}

Node.js v20.20.2"""

NODE_REJECTION = """\
[eval]:1
Promise.reject(new TypeError("bad type"))
               ^

TypeError: bad type
    at [eval]:1:16
    at runScriptInThisContext (node:internal/vm:209:10)

Node.js v20.20.2"""

PYTHON_TRACEBACK = """\
INFO starting the server
Traceback (most recent call last):
  File "/srv/app/server.py", line 12, in <module>
    main()
  File "/srv/app/server.py", line 8, in main
    connect()
    ^^^^^^^^^
  File "/srv/app/db.py", line 3, in connect
    raise RuntimeError("no database at /var/db")
RuntimeError: no database at /var/db"""

PYTHON_CHAINED = """\
Traceback (most recent call last):
  File "/srv/app/config.py", line 2, in load
    return open(path).read()
FileNotFoundError: [Errno 2] No such file or directory: 'app.toml'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/server.py", line 9, in <module>
    load()
  File "/srv/app/config.py", line 4, in load
    raise SystemExit("no config")
ValueError: no config: app.toml"""

PYTHON_TASK_GROUP = """\
  + Exception Group Traceback (most recent call last):
  |   File "/srv/app/server.py", line 20, in <module>
  |     anyio.run(main)
  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/srv/app/server.py", line 14, in serve
    |     raise PermissionError("cannot bind /run/app.sock")
    | PermissionError: cannot bind /run/app.sock
    +------------------------------------"""

MUST_NAME_THE_ERROR = {
    "node throw": (NODE_THROW, ("Error: cannot read the config", "at readConfig (/srv/app/index.js:4:9)")),
    "node module not found": (
        NODE_MODULE_NOT_FOUND,
        ("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/app/index.mjs",),
    ),
    "node rejection": (NODE_REJECTION, ("TypeError: bad type", "at [eval]:1:16")),
    "python traceback": (
        PYTHON_TRACEBACK,
        ("RuntimeError: no database at /var/db", 'File "/srv/app/db.py", line 3, in connect'),
    ),
    "python chained": (
        PYTHON_CHAINED,
        ("ValueError: no config: app.toml", 'File "/srv/app/config.py", line 4, in load'),
    ),
    "python task group": (
        PYTHON_TASK_GROUP,
        ("PermissionError: cannot bind /run/app.sock", 'File "/srv/app/server.py", line 14, in serve'),
    ),
}

FIRST_LINES = {
    "usage": ("usage: srv --root DIR\nerror: --root is required\nsee srv --help\nbye", 3),
    "one line": ("config missing: set TOKEN", 1),
    "nothing": ("", 0),
    "blank lines": ("\n\n   \nonly this\n\n", 1),
}


@pytest.mark.parametrize(("stderr", "expected"), MUST_NAME_THE_ERROR.values(), ids=MUST_NAME_THE_ERROR.keys())
def test_the_error_and_where_it_was_thrown_are_quoted(stderr: str, expected: tuple[str, ...]) -> None:
    assert why_it_ended(stderr.splitlines()) == expected


@pytest.mark.parametrize(("stderr", "count"), FIRST_LINES.values(), ids=FIRST_LINES.keys())
def test_otherwise_the_first_lines(stderr: str, count: int) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert why_it_ended(stderr.splitlines()) == tuple(lines[:count])


def test_a_node_error_after_more_than_the_last_lines_hold_is_still_found() -> None:
    ring = StderrRing()
    ring.feed(NODE_THROW.encode() + b"\n")
    ring.feed(b"".join(b"  requireStack: '/srv/app/x%d.js'\n" % i for i in range(100)))
    assert why_it_ended(ring.kept())[0] == "Error: cannot read the config"


@given(st.lists(st.text(min_size=0, max_size=2000), max_size=60))
def test_always_bounded(lines: list[str]) -> None:
    quoted = why_it_ended(lines)
    assert len(quoted) <= MAX_LINES
    assert all(0 < len(line) <= MAX_LINE_CHARS for line in quoted)


@given(st.lists(st.text(alphabet="ab \n", min_size=1, max_size=8), max_size=80))
def test_the_record_keeps_lines_in_order_and_none_twice(chunks: list[str]) -> None:
    ring = StderrRing(lines=5)
    for chunk in chunks:
        ring.feed(chunk.encode())
    *complete, partial = "".join(chunks).split("\n")
    written = [line for line in complete if line.strip()]
    unfinished = [partial] if partial.strip() else []
    kept = list(ring.kept())
    if len(written) <= 10 + 5:
        assert kept == written + unfinished
    else:
        assert kept == written[:10] + written[-5:] + unfinished


def test_the_sandboxs_refusals_come_before_the_package_managers_words() -> None:
    """A sandboxed `npx -y` that could not fetch its package: the egress filter's line says why."""
    refused = "[sandbox] refused a connection to r.example:443: not on the network list; ..."
    lines = [
        "npm warn x",
        refused,
        "npm error 403 Forbidden",
        "npm error In most cases, you...",
        "npm error log",
    ]
    assert why_it_ended(lines) == (refused, "npm warn x", "npm error 403 Forbidden")
    many = [f"{refused} {i}" for i in range(5)]
    assert why_it_ended([*many, "z"]) == tuple(many[-MAX_LINES:])
