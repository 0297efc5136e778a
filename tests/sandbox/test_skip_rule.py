"""When the sandbox tests may skip. Load-bearing direction: with LEVELCODE_TEST_REQUIRE_SANDBOX set
(.ci/run sets it after installing bwrap), a missing bwrap or a probe that could not run fails the
test instead of skipping it, so a CI run never passes green with the sandbox untested. The second
corpus: a kernel that refuses the namespaces, or another OS, still skips with the probe's reason,
and an unmarked test is never touched."""

from __future__ import annotations

from typing import Any

import pytest

from levelcode.sandbox.probe import SandboxSupport
from tests.support import sandbox
from tests.support.missing import REQUIRE_ALL

NOT_FOUND = "bwrap was not found on PATH; install bubblewrap (e.g. `apt-get install bubblewrap`)"
KERNEL = (
    "bwrap cannot create a sandbox here (bwrap: setting up uid map: Permission denied); "
    "user namespaces may be disabled"
)


class Item:
    def __init__(self, marked: bool) -> None:
        self.marked = marked

    def get_closest_marker(self, name: str) -> object | None:
        return object() if self.marked and name == sandbox.MARKER else None


def _with(monkeypatch: pytest.MonkeyPatch, reason: str | None, *, required: bool) -> None:
    support = SandboxSupport("/usr/bin/bwrap" if reason is None else None, reason)
    monkeypatch.setattr(sandbox, "sandbox_support", lambda: support)
    monkeypatch.delenv(REQUIRE_ALL, raising=False)  # .ci/run sets it: each case says what it requires
    if required:
        monkeypatch.setenv(sandbox.REQUIRED, "1")
    else:
        monkeypatch.delenv(sandbox.REQUIRED, raising=False)


@pytest.mark.parametrize("reason", [NOT_FOUND, "bwrap could not be run: timed out after 10 seconds"])
def test_where_the_sandbox_is_required_a_missing_one_fails(
    monkeypatch: pytest.MonkeyPatch, reason: str
) -> None:
    _with(monkeypatch, reason, required=True)
    with pytest.raises(pytest.fail.Exception, match="there is no sandbox"):
        sandbox.skip_without_sandbox(Item(marked=True))  # type: ignore[arg-type]


@pytest.mark.parametrize("reason", [KERNEL, "the sandbox needs Linux (this is darwin)"])
def test_a_kernel_without_support_skips_with_the_reason(monkeypatch: pytest.MonkeyPatch, reason: str) -> None:
    _with(monkeypatch, reason, required=True)
    with pytest.raises(pytest.skip.Exception, match="no sandbox on this machine: "):
        sandbox.skip_without_sandbox(Item(marked=True))  # type: ignore[arg-type]


def test_without_the_requirement_a_missing_bwrap_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, NOT_FOUND, required=False)
    with pytest.raises(pytest.skip.Exception, match="bwrap was not found"):
        sandbox.skip_without_sandbox(Item(marked=True))  # type: ignore[arg-type]


def test_requiring_every_piece_requires_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, NOT_FOUND, required=False)
    monkeypatch.setenv(REQUIRE_ALL, "1")
    with pytest.raises(pytest.fail.Exception, match="there is no sandbox"):
        sandbox.skip_without_sandbox(Item(marked=True))  # type: ignore[arg-type]


@pytest.mark.parametrize("reason", [None, NOT_FOUND])
def test_an_unmarked_test_or_a_working_sandbox_runs(monkeypatch: pytest.MonkeyPatch, reason: Any) -> None:
    _with(monkeypatch, reason, required=True)
    sandbox.skip_without_sandbox(Item(marked=reason is None))  # type: ignore[arg-type]
