"""Servers spawned before the event loop runs (the user's own, the moment settings are read), and
taken over by the hub when it starts them: the same launch object, resolved once, and the same
process, started once; one the hub never takes is ended with the rest; a server that died before
it was taken is reported from that process; a taken server that dies mid-call is seen at once.
Load-bearing direction: no second resolution, no second process, and no process left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch import resolve as launch
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.server_plan import plan_servers
from levelcode.mcp.live.early_start import EarlyStart, start_planned
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.session_hub import make_hub
from levelcode.platform.settings_files import load_settings
from levelcode.policy.settings import Settings
from tests.support.processes import read_pids, survivors
from tests.support.servers import FAULT_SERVER, fault_spec

begun: list[EarlyStart] = []


@pytest.fixture(autouse=True)
def no_early_leftovers() -> Iterator[None]:
    yield
    for early in begun:
        early.end_untaken()  # a failed test must not hand its processes to the next
    begun.clear()


def _start(workspace: Path, settings: Settings, at_most: int | None = None) -> EarlyStart:
    early = start_planned(plan_servers(workspace, settings), at_most=at_most)
    begun.append(early)
    return early


def _user_spec(workspace: Path, settings: Settings, name: str) -> ServerSpec:
    """The entry as the session's configuration has it (what the hub is asked to start)."""
    spec = load_mcp_config(workspace, settings).server(name)
    assert spec is not None
    return spec


def _settings(home: Path, pid_file: Path, *flags: str) -> Path:
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER), *flags]}
    entry["env"] = {"FAULT_PID_FILE": str(pid_file)}
    path = home / "settings.json"
    path.write_text(json.dumps({"mcpServers": {"fault": entry, "off": {**entry, "disabled": True}}}))
    return path


async def test_a_server_spawned_early_is_taken_over_by_the_hub_once_with_its_launch(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared: list[str] = []
    original = launch.prepare_private_dir
    monkeypatch.setattr(
        launch, "prepare_private_dir", lambda spec, made: (prepared.append(spec.name), original(spec, made))
    )
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file))
    early = _start(tmp_path, settings)
    assert early.started == ["fault"]  # not the disabled one
    resolved = early.servers["fault"].launch
    hub = make_hub(tmp_path, settings, early=early)
    assert hub.options.log_dir == early.options.log_dir
    await hub.start([_user_spec(tmp_path, settings, "fault")])
    try:
        assert early.servers == {}
        connection = hub.connection("fault")
        assert connection is not None
        assert connection.session.transport.launch is resolved  # type: ignore[attr-defined]
        assert (await connection.call_tool("echo", {"message": "early"})).text == "early"
        assert read_pids(pid_file) == [connection.pid]  # one process: the early one
    finally:
        await hub.reap_all()
    assert prepared == ["fault"]  # its private directory made once: the launch was resolved once
    assert survivors(read_pids(pid_file)) == []
    log = (isolated_home / "state" / "logs" / "fault.log").read_text()
    assert log.count(" starting ") == 1


async def test_servers_held_back_start_later_and_are_taken_over_as_early_ones(
    isolated_home: Path, tmp_path: Path
) -> None:
    # the REPL's way: one server now, the others once its prompt is up; still one process each
    pids = [tmp_path / "pids-a", tmp_path / "pids-b"]
    entries = {
        name: {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": {"FAULT_PID_FILE": str(pid)}}
        for name, pid in zip(("a", "b"), pids, strict=True)
    }
    (isolated_home / "settings.json").write_text(json.dumps({"mcpServers": entries}))
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    early = _start(tmp_path, settings, at_most=1)
    assert (early.started, early.held) == (["a"], ["b"])
    assert early.start_held() == ["b"]
    assert (early.started, early.held) == (["a", "b"], [])
    assert early.start_held() == []
    hub = make_hub(tmp_path, settings, early=early)
    await hub.start([_user_spec(tmp_path, settings, "a"), _user_spec(tmp_path, settings, "b")])
    try:
        assert early.servers == {}
        for name, pid in zip(("a", "b"), pids, strict=True):
            connection = hub.connection(name)
            assert connection is not None
            assert read_pids(pid) == [connection.pid]
    finally:
        await hub.reap_all()
    assert survivors([*read_pids(pids[0]), *read_pids(pids[1])]) == []


async def test_a_server_that_died_before_the_hub_took_it_is_reported_from_that_process(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file, "--exit-at-start"))
    early = _start(tmp_path, settings)
    process = early.servers["fault"].process
    assert process is not None
    process.wait(timeout=20)  # dead before anything was sent to it
    hub = make_hub(tmp_path, settings, early=early)
    await hub.start([_user_spec(tmp_path, settings, "fault")])
    state = hub.servers["fault"]
    assert state.status.phase == "failed"
    assert state.status.detail == (
        "exited while starting (exit code 2); stderr: fault-server: refusing to start"
    )
    assert read_pids(pid_file) == [process.pid]  # not started again to see it fail
    await hub.reap_all()


async def test_a_taken_over_server_that_dies_mid_call_is_an_error_at_once(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file))
    early = _start(tmp_path, settings)
    hub = make_hub(tmp_path, settings, early=early)
    await hub.start([_user_spec(tmp_path, settings, "fault")])
    try:
        outcome = await hub.call("fault", "crash", {})
        assert outcome.is_error
        assert "exited (exit code 3)" in outcome.text
        assert "fatal: simulated crash" in outcome.text
    finally:
        await hub.reap_all()
    assert survivors(read_pids(pid_file)) == []


async def test_a_server_spawned_early_that_the_hub_never_takes_is_ended_with_the_rest(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file, "--slow-start", "30"))
    early = _start(tmp_path, settings)
    assert early.started == ["fault"]
    await McpHub(ConnectOptions(workspace=tmp_path), early=early).reap_all()
    assert early.servers == {}
    assert survivors(read_pids(pid_file)) == []


async def test_a_server_begun_for_another_entry_of_that_name_is_ended_not_taken(
    isolated_home: Path, tmp_path: Path
) -> None:
    # the settings changed between the early start and the hub: the entry the hub starts wins
    pid_file = tmp_path / "pids"
    settings = load_settings(tmp_path, _settings(isolated_home, pid_file, "--slow-start", "30"))
    early = _start(tmp_path, settings)
    spawned = read_pids(pid_file)
    hub = make_hub(tmp_path, settings, early=early)
    await hub.start([fault_spec(pid_file=pid_file)])
    try:
        connection = hub.connection("fault")
        assert connection is not None
        assert connection.pid not in spawned
        assert survivors(spawned) == []
    finally:
        await hub.reap_all()
    assert survivors(read_pids(pid_file)) == []


def test_a_launch_that_cannot_be_resolved_is_left_to_the_hub(isolated_home: Path, tmp_path: Path) -> None:
    entry = {"command": "srv", "env": {"TOKEN": "${SURELY_UNSET_VARIABLE}"}}
    (isolated_home / "settings.json").write_text(json.dumps({"mcpServers": {"needs": entry}}))
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    early = _start(tmp_path, settings)
    assert (early.started, early.servers) == ([], {})


def test_a_server_whose_entry_asks_for_the_sandbox_is_left_to_the_hub(
    isolated_home: Path, tmp_path: Path
) -> None:
    # spawned early it would run unconfined
    pid_file = tmp_path / "pids"
    path = _settings(isolated_home, pid_file)
    entries = json.loads(path.read_text())
    entries["mcpServers"]["fault"]["sandbox"] = {"network": False}
    path.write_text(json.dumps(entries))
    settings = load_settings(tmp_path, path)
    assert _start(tmp_path, settings).started == []  # its launch is planned; the hub boxes it
    assert read_pids(pid_file) == []


def test_a_repository_server_is_never_spawned_early(isolated_home: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": {"FAULT_PID_FILE": str(pid_file)}}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": entry}}))
    (isolated_home / "settings.json").write_text("{}")
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    assert _start(tmp_path, settings).servers == {}
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
    assert hub.servers["fault"].status.running
    assert hub.still_starting() == ["slow"]
    await hub.reap_all()
    assert hub.servers["slow"].status.detail == "start-up was interrupted"
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


def test_the_early_start_spawns_before_the_event_loop_is_loaded() -> None:
    # what lets it spawn the user's servers before the rest of LevelCode (and asyncio) is imported
    probe = (
        "import sys, levelcode.mcp.live.early_start, levelcode.mcp.launch.connect_options;"
        "print(sorted(m for m in ('asyncio', 'uvloop', 'levelcode.mcp.live.hub') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
