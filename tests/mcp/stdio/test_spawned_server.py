"""What a spawned server really gets, asked of the server itself (the fault server's `whereami`).
Load-bearing direction: a user-tier server without `cwd` does not run in the workspace; `${VAR}` in
an argument reaches the server as written (only `${workspaceFolder}` is filled in); every server
carries the parent-death signal (SIGKILL), whether started by `connect` or by the hub. The second
corpus: the private directory exists, is 0700 and is the server's own; a repository's server runs
in the workspace."""

from __future__ import annotations

import dataclasses
import json
import signal
import stat
import sys
from pathlib import Path

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import Provenance
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from levelcode.mcp.live.hub import McpHub
from levelcode.platform import paths
from tests.support.servers import fault_spec


@pytest.fixture
def options(tmp_path: Path) -> ConnectOptions:
    (tmp_path / "repo").mkdir()
    return ConnectOptions(workspace=tmp_path / "repo", startup_timeout=15, servers_dir=tmp_path / "servers")


async def whereami(spec: object, options: ConnectOptions) -> dict[str, object]:
    connection = await connect(spec, options, hint="legacy")  # type: ignore[arg-type]
    try:
        seen: dict[str, object] = json.loads((await connection.call_tool("whereami", {})).text)
        return seen
    finally:
        await connection.close()


async def test_a_users_server_runs_in_its_own_private_directory(
    tmp_path: Path, options: ConnectOptions
) -> None:
    spec = fault_spec(pid_file=tmp_path / "pids")
    seen = await whereami(spec, options)
    private = paths.server_dir("fault", options.servers_dir)
    assert seen["cwd"] == str(private)
    assert seen["cwd"] != str(options.workspace)
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert stat.S_IMODE(private.parent.stat().st_mode) == 0o700


async def test_a_repository_server_runs_in_the_workspace(tmp_path: Path, options: ConnectOptions) -> None:
    spec = dataclasses.replace(
        fault_spec(pid_file=tmp_path / "pids"), provenance=Provenance("workspace", "/repo/.mcp.json")
    )
    assert (await whereami(spec, options))["cwd"] == str(options.workspace)


async def test_references_left_in_arguments_are_filled_in_at_spawn_and_workspace_folder_too(
    tmp_path: Path, options: ConnectOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What config loading left as a reference (a secret's: config/launch_expansion.py) reaches the
    server filled in, as Claude Code fills it in; `$HOME` without braces is no reference."""
    monkeypatch.setenv("LEVELCODE_TEST_SECRET", "s3cret")
    monkeypatch.setenv("HOME", "/home/tester")
    (options.workspace / "sub").mkdir()
    spec = fault_spec(pid_file=tmp_path / "pids")
    written = ["${LEVELCODE_TEST_SECRET}", "${HOME}", "$HOME", "${UNSET_X:-d}"]
    spec = dataclasses.replace(
        spec, args=(*spec.args, *written, "${workspaceFolder}/x"), cwd="${workspaceFolder}/sub"
    )
    seen = await whereami(spec, options)
    assert seen["argv"] == ["s3cret", "/home/tester", "$HOME", "d", f"{options.workspace}/x"]
    assert seen["cwd"] == str(options.workspace / "sub")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
async def test_every_spawn_carries_the_parent_death_signal(tmp_path: Path, options: ConnectOptions) -> None:
    spec = fault_spec(pid_file=tmp_path / "pids")
    assert (await whereami(spec, options))["pdeathsig"] == signal.SIGKILL
    hub = McpHub(options)
    await hub.start([dataclasses.replace(spec, name="via-hub")])
    try:
        outcome = await hub.call("via-hub", "whereami", {})
        text, _ = outcome.text, outcome.is_error
        assert json.loads(text)["pdeathsig"] == signal.SIGKILL
    finally:
        await hub.reap_all()


async def test_a_repository_server_never_receives_a_provider_key(
    tmp_path: Path, options: ConnectOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider")
    monkeypatch.setenv("SAME_VALUE", "sk-settings")
    options = dataclasses.replace(options, provider_key_values=frozenset({"sk-settings"}))
    base = fault_spec(pid_file=tmp_path / "pids")
    env = (("A", "${OPENAI_API_KEY:-kept back}"), ("B", "${SAME_VALUE:-kept back}"))
    repo = dataclasses.replace(base, env=env, provenance=Provenance("workspace", "/repo/.mcp.json"))
    seen = await whereami(repo, options)
    assert (seen["env"]["A"], seen["env"]["B"]) == ("kept back", "kept back")  # type: ignore[index]
    assert "sk-provider" not in json.dumps(seen)
    mine = await whereami(dataclasses.replace(repo, provenance=base.provenance), options)
    assert (mine["env"]["A"], mine["env"]["B"]) == ("sk-provider", "sk-settings")  # type: ignore[index]
    no_default = dataclasses.replace(repo, env=(("A", "${OPENAI_API_KEY}"),))
    with pytest.raises(
        ServerStartError, match=r"\$\{OPENAI_API_KEY\}, which holds LevelCode's own provider key"
    ):
        await connect(no_default, options, hint="legacy")
