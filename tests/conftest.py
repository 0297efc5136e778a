"""Every test runs with LEVELCODE_HOME and HOME in a temporary directory: none reads the real user's
config, state or home (nor the machine's organisation policy: its path points at a file that is
not there), and no provider key leaks in from the developer's shell. No test reaches
the developer's system keyring (the keyring package is pointed at its always-failing backend, so
sign-ins go to the 0600 file under LEVELCODE_HOME; the keyring tests opt in to a Secret Service of
their own, tests/support/secret_service.py) or opens a real browser (BROWSER is `true`).

Property tests run without hypothesis's per-example deadline: the machines are shared and noisy,
and one slow example under load (316 ms against 200 ms, in CI) is not a failure of the code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from levelcode.platform import paths
from tests.support.missing import as_skip
from tests.support.sandbox import skip_without_sandbox
from tests.support.terminal import Terminal

settings.register_profile("levelcode", deadline=None)
settings.load_profile("levelcode")

_SCRUBBED = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENROUTER_API_KEY",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path_factory.mktemp("home")
    levelcode_home = root / "levelcode-home"
    user_home = root / "user-home"
    levelcode_home.mkdir()
    user_home.mkdir()
    monkeypatch.setenv("LEVELCODE_HOME", str(levelcode_home))
    monkeypatch.setenv("HOME", str(user_home))
    for name in _SCRUBBED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("BROWSER", "true")
    no_policy = root / "no-managed-settings.json"
    monkeypatch.setattr(paths, "managed_settings_path", lambda platform="": no_policy)
    return levelcode_home


@pytest.fixture
def terminal(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    """A real terminal (tmux on a private socket), killed after the test."""
    term = Terminal(request.node.name[:40].replace("[", "-").replace("]", ""))
    yield term
    term.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test that ran a program this machine does not have (git, uvx…) skips, naming it."""
    outcome = yield
    as_skip(outcome.get_result(), call.excinfo.value if call.excinfo else None)  # type: ignore[attr-defined]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked `sandbox` skip, with the probe's reason, where no sandbox can be set up."""
    skip_without_sandbox(item)
