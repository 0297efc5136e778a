"""Which of the user's folders the sandbox hides, named from the environment and then in a real
sandbox. Load-bearing direction: the user's runtime folder (/run/user/UID: session bus, gpg, ssh
and keyring agents) is hidden whether or not $XDG_RUNTIME_DIR is set, and so is the one that
variable names; the secret stores under ~/.config are hidden even when $XDG_CONFIG_HOME points
elsewhere, as well as those under it. Each refusal in the real sandbox is shown to be the
sandbox's doing by the same command reading the file unconfined. The second corpus: nothing is
named twice, and a folder that does not exist is never hidden (the survey keeps existing ones)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from levelcode.platform import paths
from levelcode.sandbox.confinement import Confinement
from levelcode.sandbox.locations import USER_RUNTIME_ROOT, HostPaths
from levelcode.sandbox.probe import sandbox_support
from levelcode.tools.base import ToolContext
from levelcode.tools.run_command import run_command
from tests.support.sandbox import host_folder

RUNTIME_SECRET = "keyring-control-socket-stand-in"
GH_SECRET = "gho_notarealtoken0123456789"
UID = os.getuid()


def host(home: Path, env: Mapping[str, str], runtime_root: Path = USER_RUNTIME_ROOT) -> HostPaths:
    return HostPaths.from_environment(
        {"HOME": str(home), **env},
        config_dir=paths.config_dir(),
        state_dir=paths.state_dir(),
        runtime_root=runtime_root,
    )


# --- named from the environment -----------------------------------------------------------------


def test_the_user_runtime_folder_is_named_without_the_variable() -> None:
    hidden = host(Path("/home/u"), {}).secret_dirs()
    assert Path(f"/run/user/{UID}") in hidden


def test_the_variables_folder_and_the_user_runtime_folder_are_both_named() -> None:
    hidden = host(Path("/home/u"), {"XDG_RUNTIME_DIR": "/var/run/elsewhere"}).secret_dirs()
    assert Path("/var/run/elsewhere") in hidden
    assert Path(f"/run/user/{UID}") in hidden


def test_a_runtime_folder_is_named_once() -> None:
    hidden = host(Path("/home/u"), {"XDG_RUNTIME_DIR": f"/run/user/{UID}"}).secret_dirs()
    assert hidden.count(Path(f"/run/user/{UID}")) == 1


def test_config_stores_are_named_under_both_config_homes() -> None:
    hidden = host(Path("/home/u"), {"XDG_CONFIG_HOME": "/data/cfg"}).secret_dirs()
    assert Path("/home/u/.config/gh") in hidden
    assert Path("/data/cfg/gh") in hidden
    plain = host(Path("/home/u"), {}).secret_dirs()
    assert plain.count(Path("/home/u/.config/gh")) == 1


# --- in a real sandbox ----------------------------------------------------------------------------


@pytest.fixture
def outside() -> Iterator[Path]:
    """Outside /tmp: there the private /tmp would hide the files whatever the policy said."""
    with host_folder() as folder:
        yield folder


async def _read(workspace: Path, hosts: HostPaths | None, *files: Path) -> str:
    sandbox = Confinement(sandbox_support(), hosts) if hosts is not None else None
    command = "echo ran; " + "; ".join(f"cat {f}" for f in files)
    return await run_command(
        ToolContext(workspace, sandbox=sandbox), {"command": command, "timeout_seconds": 60}
    )


@pytest.mark.sandbox
@pytest.mark.parametrize("named", [False, True], ids=["variable-unset", "variable-set"])
async def test_the_user_runtime_folder_is_hidden_in_the_sandbox(
    tmp_path: Path, outside: Path, named: bool
) -> None:
    runtime = outside / "run-user" / str(UID)  # stands for /run/user/UID
    runtime.mkdir(parents=True)
    (runtime / "bus").write_text(RUNTIME_SECRET)
    env = {"XDG_RUNTIME_DIR": str(runtime)} if named else {}
    hosts = host(outside / "home", env, runtime_root=outside / "run-user")
    result = await _read(tmp_path, hosts, runtime / "bus")
    assert result.startswith("ran\n"), result
    assert RUNTIME_SECRET not in result
    assert RUNTIME_SECRET in await _read(tmp_path, None, runtime / "bus")  # unconfined, it is there


@pytest.mark.sandbox
async def test_config_stores_under_the_home_are_hidden_when_the_config_home_is_elsewhere(
    tmp_path: Path, outside: Path
) -> None:
    home = outside / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(f"github.com:\n  oauth_token: {GH_SECRET}\n")
    (outside / "cfg" / "gh").mkdir(parents=True)
    (outside / "cfg" / "gh" / "hosts.yml").write_text(f"other: {GH_SECRET}-2\n")
    hosts = host(home, {"XDG_CONFIG_HOME": str(outside / "cfg")})
    files = (home / ".config" / "gh" / "hosts.yml", outside / "cfg" / "gh" / "hosts.yml")
    result = await _read(tmp_path, hosts, *files)
    assert result.startswith("ran\n"), result
    assert GH_SECRET not in result
    assert GH_SECRET in await _read(tmp_path, None, *files)
