"""Install once: the package built from this checkout and installed the README's way (`uv tool
install`, here into a tool folder of the test's own) runs as `levelcode` from a folder that has
nothing to do with the checkout: `--version`, a headless task against a fake provider found through
the provider's base-URL variable, and a sandboxed command through the egress filter, whose proxy is
a script run by its path (so the wheel must carry every file of the package, not only what an
import reaches).

The tool's dependencies are pinned to uv.lock's versions, the wheels `uv sync` already put in uv's
cache, and installed offline; only where that cache lacks the index's metadata (a machine that has
only synced from the lock) does uv read the index, once, for those same versions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import cli_env
from tests.support.listener import Listener

ROOT = Path(__file__).resolve().parent.parent
# The environment the test run started with: HOME is replaced for every test (tests/conftest.py),
# and uv's cache, which holds the wheels `uv sync` fetched, is found through it.
_STARTING_ENV = dict(os.environ)


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin_dir: Path  # UV_TOOL_BIN_DIR: holds the `levelcode` the install put there, and nothing else


def _uv(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run uv offline; where the cache cannot answer, once more with the index."""
    offline = subprocess.run(
        ["uv", *args, "--offline"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    if offline.returncode == 0:
        return offline
    online = subprocess.run(
        ["uv", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert online.returncode == 0, f"offline:\n{offline.stderr}\nwith the index:\n{online.stderr}"
    return online


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    if shutil.which("uv", path=_STARTING_ENV.get("PATH")) is None:  # scripts/test stops without it
        pytest.skip("uv is not on PATH: the README's install needs it")
    root = tmp_path_factory.mktemp("install")
    cache = subprocess.run(
        ["uv", "cache", "dir"], env=_STARTING_ENV, capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()
    env = {
        **_STARTING_ENV,
        "HOME": str(root / "home"),  # no uv settings of the developer's beyond the cache
        "UV_CACHE_DIR": cache,
        "UV_TOOL_DIR": str(root / "tools"),
        "UV_TOOL_BIN_DIR": str(root / "bin"),
    }
    env.pop("VIRTUAL_ENV", None)
    _uv(["build", "--wheel", "--out-dir", str(root / "dist"), str(ROOT)], env, ROOT)
    (wheel,) = (root / "dist").glob("levelcode-*.whl")
    pins = root / "pins.txt"
    export = ["export", "--frozen", "--no-dev", "--no-emit-project", "--no-hashes", "-o", str(pins)]
    _uv(export, env, ROOT)
    _uv(["tool", "install", "--python", sys.executable, "--constraints", str(pins), str(wheel)], env, root)
    return Installed(wheel, root / "bin")


def _levelcode(
    installed: Installed, home: Path, cwd: Path, *args: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    """The installed command, found on PATH as a user's shell finds it: no checkout, no venv."""
    env = cli_env(home, PATH=f"{installed.bin_dir}:/usr/bin:/bin", **extra)
    return subprocess.run(
        ["levelcode", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder of the user's own, outside the checkout."""
    folder = tmp_path / "myproject"
    folder.mkdir()
    assert not folder.is_relative_to(ROOT)
    return folder


def test_the_wheel_carries_every_file_of_the_package(installed: Installed) -> None:
    package = ROOT / "levelcode"
    wanted = {
        path.relative_to(ROOT).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    carried = set(zipfile.ZipFile(installed.wheel).namelist())
    assert wanted - carried == set()
    assert "levelcode/sandbox/egress_proxy.py" in carried  # run by path, never imported by levelcode


def test_levelcode_version_anywhere(installed: Installed, isolated_home: Path, elsewhere: Path) -> None:
    done = _levelcode(installed, isolated_home, elsewhere, "--version")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert (done.returncode, done.stdout, done.stderr) == (0, f"levelcode {version}\n", "")


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda api: api.name)
def test_a_headless_task_in_any_folder(
    api: Api, installed: Installed, isolated_home: Path, elsewhere: Path
) -> None:
    steps = [
        Reply(tool_calls=(ToolCall("write_file", {"path": "notes.txt", "content": "from levelcode\n"}),)),
        Reply(text="Wrote notes.txt."),
    ]
    base_url, key = {"anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}.get(
        api.name, ("OPENAI_BASE_URL", "OPENAI_API_KEY")
    )
    # A self-hosted OpenAI-compatible server has no default model: the user names it.
    model = [] if api.name == "anthropic" else ["--model", api.model]
    with api.fake(steps) as server:
        done = _levelcode(
            installed,
            isolated_home,
            elsewhere,
            "run",
            *model,
            "--autopilot",
            "write the notes",
            **{base_url: server.base_url, key: "test-key"},
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Wrote notes.txt."
    assert (elsewhere / "notes.txt").read_text() == "from levelcode\n"  # the workspace is the cwd
    assert len(server.requests) == 2


@pytest.mark.sandbox
def test_a_sandboxed_command_reaches_an_allowed_host_through_the_egress_filter(
    installed: Installed, isolated_home: Path, elsewhere: Path
) -> None:
    with Listener() as listener:
        allowed = ["--allow-host", f"127.0.0.1:{listener.port}"]
        fetch = ["curl", "-sS", "-m", "10", listener.url]
        done = _levelcode(installed, isolated_home, elsewhere, "sandbox", *allowed, "--", *fetch)
        received = listener.received()
    assert (done.returncode, done.stdout) == (0, "ok"), done.stderr
    assert b"GET / HTTP/1.1" in received
