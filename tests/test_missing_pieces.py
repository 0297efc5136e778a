"""A test whose piece of the machine is missing (npm servers, the old-SDK venv, tmux, a keyring
daemon) skips, naming the piece and the command that installs it — even while its module is
collected, so a clone without `npm ci` collects. Load-bearing direction: where the run requires
everything (LEVELCODE_TEST_REQUIRE_ALL, set by .ci/run) the same test fails instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import missing, secret_service, servers
from tests.support.missing import REQUIRE_ALL
from tests.support.terminal import Terminal

KEYRING = "LEVELCODE_TEST_REQUIRE_KEYRING"


@pytest.fixture
def absent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without npm's servers, the old-SDK venv or any program on PATH."""
    monkeypatch.setattr(servers, "NODE_BIN", tmp_path / "node_modules" / ".bin")
    monkeypatch.setattr(servers, "LEGACY_SDK_VENV", tmp_path / ".venv-legacy-sdk")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv(REQUIRE_ALL, raising=False)
    monkeypatch.delenv(KEYRING, raising=False)


CASES: dict[str, tuple[Callable[[], object], str]] = {
    "npm server": (lambda: servers.node_server("mcp-server-memory"), "run `npm ci`"),
    "old-SDK venv": (lambda: servers.legacy_sdk_bin("legacy-server"), "run scripts/test"),
    "npm server through npx": (lambda: servers.npx_installed("mcp-server-everything"), "run `npm ci`"),
    "tmux": (lambda: Terminal("x"), "apt-get install tmux"),
    "keyring daemon": (secret_service.require_tools, "apt-get install dbus gnome-keyring"),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.usefixtures("absent")
def test_a_missing_piece_skips_naming_how_to_install_it(case: str) -> None:
    call, install = CASES[case]
    with pytest.raises(pytest.skip.Exception, match="is missing: ") as skipped:
        call()
    assert install in str(skipped.value)
    assert skipped.value.allow_module_level  # called at import, it skips the module, not errors


@pytest.mark.parametrize("case", CASES)
@pytest.mark.usefixtures("absent")
def test_where_every_piece_is_required_a_missing_one_fails(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REQUIRE_ALL, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_ALL} is set"):
        CASES[case][0]()


@pytest.mark.usefixtures("absent")
def test_npx_missing_beside_the_npm_servers_skips_naming_node() -> None:
    servers.NODE_BIN.mkdir(parents=True)
    (servers.NODE_BIN / "mcp-server-everything").touch()
    with pytest.raises(pytest.skip.Exception, match=r"npx \(not on PATH\) is missing: install Node.js"):
        servers.npx_installed("mcp-server-everything")


@pytest.mark.usefixtures("absent")
def test_the_keyring_is_required_by_its_own_variable_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEYRING, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{KEYRING} is set"):
        secret_service.require_tools()


def test_a_present_piece_is_its_path() -> None:
    assert servers.node_server("mcp-server-memory").endswith("node_modules/.bin/mcp-server-memory")


def _failed(error: BaseException) -> pytest.TestReport:
    report = pytest.TestReport("tests/x.py::t", ("tests/x.py", 3, "t"), {}, "failed", "boom", "call")
    missing.as_skip(report, error)
    return report


@pytest.mark.usefixtures("absent")
def test_a_test_that_ran_a_program_not_installed_is_reported_skipped_naming_it() -> None:
    report = _failed(FileNotFoundError(2, "No such file or directory", "git"))
    assert report.outcome == "skipped"
    assert report.longrepr == ("tests/x.py", 3, "Skipped: git (not on PATH) is missing: apt-get install git")


@pytest.mark.usefixtures("absent")
def test_where_every_piece_is_required_or_the_file_is_another_the_failure_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _failed(FileNotFoundError(2, "No such file or directory", "data.json")).outcome == "failed"
    assert _failed(ValueError("git")).outcome == "failed"
    monkeypatch.setenv(REQUIRE_ALL, "1")
    assert _failed(FileNotFoundError(2, "No such file or directory", "git")).outcome == "failed"


def test_a_program_that_is_installed_is_not_excused() -> None:
    assert _failed(FileNotFoundError(2, "No such file or directory", "git")).outcome == "failed"
