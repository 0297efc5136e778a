"""Every fault a stdio server can commit ends in one clean outcome — a string or a start error,
never a hang, a crash or a leaked process. Each test checks the outcome, then that every pid the
server started (itself, grandchildren) is gone after the hub is done with it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.core.outcome import ToolOutcome
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection, connect
from levelcode.mcp.live.hub import McpHub
from tests.support.processes import read_pids, survivors
from tests.support.servers import fault_spec


@dataclass
class Fault:
    pid_file: Path
    options: ConnectOptions

    async def connect(self, *flags: str, hint: str | None = "legacy", **overrides: object) -> McpConnection:
        spec = fault_spec(*flags, pid_file=self.pid_file, **overrides)
        return await connect(spec, self.options, hint=hint)  # type: ignore[arg-type]

    def assert_no_survivors(self) -> None:
        pids = read_pids(self.pid_file)
        assert pids, "the fault server recorded no pids"
        assert survivors(pids) == []


@pytest.fixture
def fault(tmp_path: Path) -> Fault:
    options = ConnectOptions(
        workspace=tmp_path, startup_timeout=15, call_timeout=30, log_dir=tmp_path / "logs"
    )
    return Fault(tmp_path / "pids", options)


async def test_hang_on_call_times_out_and_asks_the_server_to_cancel(fault: Fault) -> None:
    connection = await fault.connect()
    rendered = await connection.call_tool("hang", {}, timeout=0.5)
    assert rendered.is_error
    assert rendered.text == "ERROR: fault/hang timed out after 0.5 s; LevelCode asked the server to cancel it"
    assert (await connection.call_tool("echo", {"message": "still alive"})).text == "still alive"
    await connection.close()
    log = (fault.options.log_dir or Path()) / "fault.log"
    assert "fault-server: cancelled" in log.read_text()
    fault.assert_no_survivors()


async def test_hang_at_start_is_a_start_error_within_the_startup_timeout(fault: Fault) -> None:
    began = time.monotonic()
    with pytest.raises(ServerStartError, match=r"did not finish starting within 1 s"):
        await fault.connect("--hang-at-start", startup_timeout=1.0)
    assert time.monotonic() - began < 10
    fault.assert_no_survivors()


@pytest.mark.parametrize("hint", ["legacy", None])
async def test_exit_at_start_is_a_start_error_with_its_stderr(fault: Fault, hint: str | None) -> None:
    with pytest.raises(ServerStartError, match=r"exited while starting \(exit code 2\).*refusing to start"):
        await fault.connect("--exit-at-start", hint=hint)
    fault.assert_no_survivors()


async def test_slow_start_connects_within_its_timeout_and_fails_cleanly_outside_it(fault: Fault) -> None:
    connection = await fault.connect("--slow-start", "1", startup_timeout=10.0)
    assert (await connection.call_tool("echo", {"message": "ok"})).text == "ok"
    await connection.close()
    with pytest.raises(ServerStartError, match=r"within 0\.3 s"):
        await fault.connect("--slow-start", "5", startup_timeout=0.3)
    fault.assert_no_survivors()


@pytest.mark.parametrize("tool", ["crash", "crash_with_children"])
async def test_server_dying_mid_call_is_an_error_at_once_with_its_stderr(fault: Fault, tool: str) -> None:
    connection = await fault.connect()
    began = time.monotonic()
    rendered = await connection.call_tool(tool, {}, timeout=60)
    assert time.monotonic() - began < 10, "the death was noticed only at the timeout"
    assert rendered.is_error
    code = 3 if tool == "crash" else 4
    assert rendered.text.startswith(f"ERROR: server 'fault' exited (exit code {code}) during {tool}")
    assert "fault-server: " in rendered.text
    await connection.close()
    fault.assert_no_survivors()


async def test_one_50_mb_line_fails_that_call_with_bounded_memory(fault: Fault, tmp_path: Path) -> None:
    options = ConnectOptions(workspace=tmp_path, max_message_bytes=1024 * 1024, log_dir=tmp_path / "logs")
    connection = await connect(fault_spec(pid_file=fault.pid_file), options, hint="legacy")
    tracemalloc.start()
    try:
        rendered = await connection.call_tool("big", {}, timeout=60)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rendered.is_error
    assert "larger than the 1048576 byte limit" in rendered.text
    assert peak < 12 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB while reading a 50 MB line"
    assert (await connection.call_tool("echo", {"message": "after"})).text == "after"
    await connection.close()
    fault.assert_no_survivors()


async def test_garbage_and_invalid_utf8_lines_are_ignored_and_a_garbled_reply_fails_only_its_call(
    fault: Fault,
) -> None:
    connection = await fault.connect("--garbage")
    assert (await connection.call_tool("echo", {"message": "clean"})).text == "clean"
    garbled = await connection.call_tool("garbage_reply", {}, timeout=10)
    assert garbled.is_error
    assert "malformed message from the server" in garbled.text
    assert (await connection.call_tool("echo", {"message": "again"})).text == "again"
    await connection.close()
    fault.assert_no_survivors()


async def test_a_server_ignoring_sigterm_is_killed(fault: Fault) -> None:
    # its grandchildren inherit the ignored SIGTERM, so only SIGKILL to the whole group ends them
    connection = await fault.connect("--ignore-sigterm", "--linger", "--grandchildren", "2")
    began = time.monotonic()
    await connection.close()
    assert 1.0 < time.monotonic() - began < 10
    fault.assert_no_survivors()


async def test_grandchildren_are_reaped_with_the_server(fault: Fault) -> None:
    connection = await fault.connect("--grandchildren", "3", "--linger")
    assert len(read_pids(fault.pid_file)) == 4
    await connection.close()
    fault.assert_no_survivors()


async def test_250_tools_over_several_pages_are_all_listed(fault: Fault) -> None:
    connection = await fault.connect("--tools", "250", "--page-size", "40")
    names = [tool["name"] for tool in connection.tools]
    assert len(names) == 266
    assert len(set(names)) == 266
    assert names[-1] == "tool_249"
    await connection.close()
    fault.assert_no_survivors()


async def test_list_changed_refreshes_the_tool_list(fault: Fault) -> None:
    connection = await fault.connect()
    changed = asyncio.Event()
    connection.on_tools_changed = lambda _c: changed.set()
    assert "added_later" not in [t["name"] for t in connection.tools]
    await connection.call_tool("change_tools", {})
    await asyncio.wait_for(changed.wait(), 10)
    assert "added_later" in [t["name"] for t in connection.tools]
    await connection.close()
    fault.assert_no_survivors()


async def test_a_burst_of_list_changed_is_one_relist_not_one_each(fault: Fault) -> None:
    # server-everything sends four at start; each used to cost a whole tools/list
    connection = await fault.connect()
    changed = asyncio.Event()
    connection.on_tools_changed = lambda _c: changed.set()
    await connection.call_tool("change_tools", {"times": 8})
    await asyncio.wait_for(changed.wait(), 10)
    answered = (await connection.call_tool("change_tools", {"times": 0})).text
    # the first list, then one re-list (a second when some came while it was on its way)
    assert answered in ("changed; tools/list answered 2 times", "changed; tools/list answered 3 times")
    assert "added_later" in [t["name"] for t in connection.tools]
    await connection.close()
    fault.assert_no_survivors()


async def test_result_shapes_become_strings(fault: Fault) -> None:
    connection = await fault.connect()
    image = await connection.call_tool("image", {})
    assert image.text == "[image 1: image/png, 29.3 KB, attached]"
    assert (await connection.call_tool("is_error", {})).text == "ERROR: the tool failed on purpose"
    rpc = await connection.call_tool("rpc_error", {})
    assert rpc.is_error
    assert rpc.text.startswith("ERROR: fault/rpc_error: rpc failure on purpose")
    await connection.close()
    fault.assert_no_survivors()


async def test_hub_caps_long_results_and_spills_the_whole_text(fault: Fault, tmp_path: Path) -> None:
    hub = McpHub(fault.options, results_dir=tmp_path / "results", result_chars=1000)
    await hub.start([fault_spec(pid_file=fault.pid_file)])
    outcome = await hub.call("fault", "huge_text", {})
    text, is_error = outcome.text, outcome.is_error
    assert not is_error
    assert text.startswith("line of text\n")
    assert (
        "[result cut: showing 1,000 of 130,000 characters; the whole result (127.0 KB) is saved in " in text
    )
    spill = Path(text.rsplit("is saved in ", 1)[1].split(": read it with read_file", 1)[0])
    assert outcome.saved is not None
    assert outcome.saved.path == str(spill)
    assert spill.read_text() == "line of text\n" * 10_000
    await hub.reap_all()
    fault.assert_no_survivors()


@pytest.mark.parametrize(
    ("era", "expected"),
    [("modern", "modern"), ("dual", "legacy"), ("legacy", "legacy"), ("silent-legacy", "legacy")],
)
async def test_first_contact_starts_the_server_once_and_finds_its_era(
    fault: Fault, era: str, expected: str
) -> None:
    connection = await fault.connect("--era", era, hint=None)
    assert connection.info.era == expected
    assert (await connection.call_tool("echo", {"message": era})).text == era
    assert len(read_pids(fault.pid_file)) == 1  # one process: no second attempt, no race
    await connection.close()
    fault.assert_no_survivors()


async def test_a_wrong_modern_hint_falls_back_to_a_fresh_legacy_process(fault: Fault, tmp_path: Path) -> None:
    fault.options = ConnectOptions(workspace=tmp_path, hinted_probe=1.0)
    connection = await fault.connect("--era", "silent-legacy", hint="modern", startup_timeout=20.0)
    assert connection.info.era == "legacy"
    await connection.close()
    fault.assert_no_survivors()


async def test_one_failing_server_does_not_block_or_break_the_others(fault: Fault, tmp_path: Path) -> None:
    hub = McpHub(fault.options)
    specs = [
        fault_spec(pid_file=fault.pid_file, name="good"),
        fault_spec("--hang-at-start", pid_file=fault.pid_file, name="stuck", startup_timeout=1.0),
        fault_spec("--exit-at-start", pid_file=fault.pid_file, name="broken"),
    ]
    began = time.monotonic()
    await hub.start(specs)
    assert time.monotonic() - began < 10
    assert {n: s.status.phase for n, s in hub.servers.items()} == {
        "good": "running",
        "stuck": "failed",
        "broken": "failed",
    }
    assert (await hub.call("good", "echo", {"message": "fine"})) == ToolOutcome("fine")
    outcome = await hub.call("broken", "echo", {})
    text, is_error = outcome.text, outcome.is_error
    assert is_error
    assert text.startswith("ERROR: MCP server 'broken' is not running (failed: exited while starting")
    await hub.reap_all()
    fault.assert_no_survivors()


async def test_server_runs_with_a_minimal_environment(
    fault: Fault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    monkeypatch.setenv("MY_TOKEN", "t0ken")
    spec = fault_spec(pid_file=fault.pid_file)
    spec = dataclasses.replace(
        spec, env=(*spec.env, ("TOKEN", "${MY_TOKEN}"), ("MODE", "${UNSET_MODE:-safe}"))
    )
    connection = await connect(spec, fault.options, hint="legacy")
    seen = json.loads((await connection.call_tool("whereami", {})).text)
    assert seen["env"]["TOKEN"] == "t0ken"
    assert seen["env"]["MODE"] == "safe"
    assert "ANTHROPIC_API_KEY" not in seen["env"]
    assert "MY_TOKEN" not in seen["env"]
    assert os.getpgid(connection.pid or 0) == connection.pid  # its own process group
    assert os.getsid(connection.pid or 0) == connection.pid  # and its own session
    await connection.close()
    cwd_spec = dataclasses.replace(fault_spec(pid_file=fault.pid_file), cwd="sub")
    (tmp_path / "sub").mkdir()
    connection = await connect(cwd_spec, fault.options, hint="legacy")
    assert json.loads((await connection.call_tool("whereami", {})).text)["cwd"] == str(tmp_path / "sub")
    await connection.close()
    fault.assert_no_survivors()


async def test_a_missing_env_variable_fails_that_server_by_name(fault: Fault) -> None:
    spec = dataclasses.replace(
        fault_spec(pid_file=fault.pid_file), env=(("TOKEN", "${LEVELCODE_TEST_UNSET}"),)
    )
    hub = McpHub(fault.options)
    await hub.start([spec])
    state = hub.servers["fault"]
    assert state.status.phase == "failed"
    assert state.status.detail is not None
    assert "${LEVELCODE_TEST_UNSET}, which is not set" in state.status.detail
    assert read_pids(fault.pid_file) == []  # nothing was started
