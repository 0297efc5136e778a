"""What a test does when a piece of the machine it needs is missing (the npm servers, the old-SDK
venv, tmux, git, a keyring daemon): it skips, naming the piece and the command that installs it.
Where the run must have everything (.ci/run sets LEVELCODE_TEST_REQUIRE_ALL) it fails instead,
so a green CI run never hides a part of the suite that did not run."""

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


def program(name: str, install: str) -> str:
    """The path of `name` on PATH; the test skips (or fails, where required) when it is not there."""
    found = shutil.which(name)
    if found is None:
        missing(f"{name} (not on PATH)", install)
    return found
