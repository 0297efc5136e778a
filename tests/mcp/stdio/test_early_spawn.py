"""Servers spawned before the event loop runs (the user's own, the moment settings are read), and
claimed by their transport when the hub connects: the same process, started once; one nobody
claims is ended with the rest; an adopted server that dies mid-call is seen at once, as any other.
Load-bearing direction: no second process, and no process left behind."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.core.settings import load_settings
from levelcode.mcp import early_start
from levelcode.mcp.connect_options import ConnectOptions
from levelcode.mcp.hub import McpHub
from levelcode.mcp.runtime import make_hub
from levelcode.mcp.stdio import early
from tests.support.processes import read_pids, survivors
from tests.support.servers import FAULT_SERVER, fault_spec


@pytest.fixture(autouse=True)
def no_early_leftovers() -> Iterator[None]:
    yield
    early.end_unclaimed()  # a failed test must not hand its processes to the next


def _settings(home: Path, pid_file: Path, *flags: str) -> Path:
    entry = {"command": __import__("sys").executable, "args": [str(FAULT_SERVER), *flags]}
    entry["env"] = {"FAULT_PID_FILE": str(pid_file)}
    path = home / "settings.json"
    path.write_text(json.dumps({"mcpServers": {"fault": entry, "off": {**entry, "disabled": True}}}))
    return path


async def test_a_server_spawned_early_is_claimed_by_its_transport_once(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file))
    assert early_start.start_user_servers(tmp_path, settings).started == ["fault"]  # not the disabled one
    assert early.unclaimed() == 1
    hub = make_hub(tmp_path, settings)
    spec = fault_spec(pid_file=pid_file)
    await hub.start([spec])
    try:
        assert early.unclaimed() == 0
        connection = hub.connection("fault")
        assert connection is not None
        assert (await connection.call_tool("echo", {"message": "early"})).text == "early"
        assert read_pids(pid_file) == [connection.pid]  # one process: the early one
    finally:
        await hub.reap_all()
    assert survivors(read_pids(pid_file)) == []
    log = (isolated_home / "state" / "logs" / "fault.log").read_text()
    assert log.count(" starting ") == 1


async def test_servers_held_back_start_later_and_are_claimed_as_early_ones(
    isolated_home: Path, tmp_path: Path
) -> None:
    # the REPL's way: one server now, the others once its prompt is up; still one process each
    pids = [tmp_path / "pids-a", tmp_path / "pids-b"]
    entries = {
        name: {
            "command": __import__("sys").executable,
            "args": [str(FAULT_SERVER)],
            "env": {"FAULT_PID_FILE": str(pid)},
        }
        for name, pid in zip(("a", "b"), pids, strict=True)
    }
    (isolated_home / "settings.json").write_text(json.dumps({"mcpServers": entries}))
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    begun = early_start.start_user_servers(tmp_path, settings, at_most=1)
    assert (begun.started, [name for name, _ in begun.held]) == (["a"], ["b"])
    assert early.unclaimed() == 1
    assert begun.start_held() == ["b"]
    assert (begun.started, begun.held, early.unclaimed()) == (["a", "b"], [], 2)
    assert begun.start_held() == []
    hub = make_hub(tmp_path, settings)
    specs = [fault_spec(pid_file=pid, name=name) for name, pid in zip(("a", "b"), pids, strict=True)]
    await hub.start(specs)
    try:
        assert early.unclaimed() == 0
        for name, pid in zip(("a", "b"), pids, strict=True):
            connection = hub.connection(name)
            assert connection is not None
            assert read_pids(pid) == [connection.pid]
    finally:
        await hub.reap_all()
    assert survivors([*read_pids(pids[0]), *read_pids(pids[1])]) == []


async def test_an_early_server_that_dies_mid_call_is_an_error_at_once(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file))
    early_start.start_user_servers(tmp_path, settings)
    hub = make_hub(tmp_path, settings)
    await hub.start([fault_spec(pid_file=pid_file)])
    try:
        outcome = await hub.call("fault", "crash", {})
        assert outcome.is_error
        assert "exited (exit code 3)" in outcome.text
        assert "fatal: simulated crash" in outcome.text
    finally:
        await hub.reap_all()
    assert survivors(read_pids(pid_file)) == []


async def test_an_early_server_nobody_claims_is_ended_with_the_rest(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file, "--slow-start", "30"))
    early_start.start_user_servers(tmp_path, settings)
    assert early.unclaimed() == 1
    await McpHub(ConnectOptions(workspace=tmp_path)).reap_all()
    assert early.unclaimed() == 0
    assert survivors(read_pids(pid_file)) == []


def test_a_launch_that_cannot_be_resolved_is_left_to_the_hub(isolated_home: Path, tmp_path: Path) -> None:
    entry = {"command": "srv", "env": {"TOKEN": "${SURELY_UNSET_VARIABLE}"}}
    (isolated_home / "settings.json").write_text(json.dumps({"mcpServers": {"needs": entry}}))
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    assert early_start.start_user_servers(tmp_path, settings).started == []
    assert early.unclaimed() == 0


def test_a_server_whose_entry_asks_for_the_sandbox_is_left_to_the_hub(
    isolated_home: Path, tmp_path: Path
) -> None:
    # spawned early it would run unconfined until its transport came for it
    pid_file = tmp_path / "pids"
    path = _settings(isolated_home, pid_file)
    entries = json.loads(path.read_text())
    entries["mcpServers"]["fault"]["sandbox"] = {"network": False}
    path.write_text(json.dumps(entries))
    settings = load_settings(tmp_path, path)
    assert early_start.start_user_servers(tmp_path, settings).started == []
    assert early.unclaimed() == 0
    assert read_pids(pid_file) == []


def test_a_repository_server_is_never_spawned_early(isolated_home: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    entry = {"command": __import__("sys").executable, "args": [str(FAULT_SERVER)]}
    entry["env"] = {"FAULT_PID_FILE": str(pid_file)}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": entry}}))
    (isolated_home / "settings.json").write_text("{}")
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    assert early_start.start_user_servers(tmp_path, settings).started == []
    assert early.unclaimed() == 0
    assert read_pids(pid_file) == []


async def test_servers_begun_are_waited_for_and_reaped_even_mid_start(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    hub = McpHub(ConnectOptions(workspace=tmp_path))
    quick, slow = (
        fault_spec(pid_file=pid_file),
        fault_spec("--slow-start", "30", pid_file=pid_file, name="slow"),
    )
    hub.begin([quick, slow])
    await hub.spawned()
    assert hub.still_starting() == ["fault", "slow"]
    await hub.start([quick])  # waits for the one asked about, begun before
    assert hub.states["fault"].status.running
    assert hub.still_starting() == ["slow"]
    await hub.reap_all()
    assert hub.states["slow"].status.detail == "start-up was interrupted"
    assert survivors(read_pids(pid_file)) == []


async def test_a_server_begun_and_up_is_not_started_again_when_the_gate_lets_it_start(tmp_path: Path) -> None:
    """The session begins the user's servers, then passes every server through the gate and starts
    what it permits: a quick server may be up by then, and must be kept, not started twice."""
    pid_file = tmp_path / "pids"
    hub = McpHub(ConnectOptions(workspace=tmp_path))
    spec = fault_spec(pid_file=pid_file)
    hub.begin([spec])
    await hub.start([spec])
    first = hub.connection("fault")
    await hub.start([spec])
    assert hub.connection("fault") is first
    assert len(read_pids(pid_file)) == 1
    await hub.reap_all()
    await hub.start([spec])  # a new chat starts it again
    assert len(read_pids(pid_file)) == 2
    await hub.reap_all()
    assert survivors(read_pids(pid_file)) == []
