"""What a test does when a piece of the machine it needs is missing (the npm servers, the old-SDK
venv, tmux, a keyring daemon, or a program it runs by name, such as git): it skips, naming the
piece and the command that installs it. Where the run must have everything (.ci/run sets
LEVELCODE_TEST_REQUIRE_ALL) it fails instead, so a green CI run never hides a part of the suite
that did not run."""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

REQUIRE_ALL = "LEVELCODE_TEST_REQUIRE_ALL"


def required(also: str = "") -> bool:
    """Whether this run must have every piece (or, with `also`, that one's own variable is set)."""
    return bool(_requiring(also))


def _requiring(also: str) -> str:
    """The variable that requires the piece, or ""."""
    return next((name for name in (REQUIRE_ALL, also) if name and os.environ.get(name)), "")


def missing(piece: str, install: str, *, also: str = "") -> NoReturn:
    """Skip the test (or the module, when called while it is collected), or fail it where required.
    `also`: the piece's own variable that requires it too (LEVELCODE_TEST_REQUIRE_KEYRING)."""
    reason = f"{piece} is missing: {install}"
    if requiring := _requiring(also):
        pytest.fail(f"{reason} (this run requires it: {requiring} is set)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


# The programs tests run by name (many call sites: `git init`, a server's `uvx`), and how to install
# each: a test that found one missing is reported as skipped for that reason (see `as_skip`).
PROGRAMS = {
    "git": "apt-get install git",
    "uvx": "pip install uv (uvx comes with it)",
    "uv": "pip install uv",
    "node": "install Node.js 20+ with npm",
    "npx": "install Node.js 20+ with npm",
    "npm": "install Node.js 20+ with npm",
    "tmux": "apt-get install tmux (.ci/run installs it)",
    "bwrap": "apt-get install bubblewrap",
}


def as_skip(report: pytest.TestReport, error: BaseException | None) -> None:
    """Turn a failure that is only "PROGRAM: no such file" (a program of PROGRAMS that is not on
    PATH) into a skip naming it and its install command — unless the run requires everything,
    where it stays the failure it is."""
    name = str(error.filename) if isinstance(error, FileNotFoundError) else ""
    if name not in PROGRAMS or shutil.which(name) is not None or required():
        return
    reason = f"{name} (not on PATH) is missing: {PROGRAMS[name]}"
    report.outcome = "skipped"
    report.longrepr = (str(report.fspath), report.location[1] or 0, f"Skipped: {reason}")


def program(name: str, install: str) -> str:
    """The path of `name` on PATH; the test skips (or fails, where required) when it is not there."""
    found = shutil.which(name)
    if found is None:
        missing(f"{name} (not on PATH)", install)
    return found
