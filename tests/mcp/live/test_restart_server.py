"""Restarting one server (`/mcp restart NAME`) through the runtime, with real server processes.
Load-bearing: a server that failed at start runs after a restart once what it lacked is there,
and its tools reach the router; a running server is replaced by a new process; the other servers
are left alone; and a restart goes through the launch gate like any start — a repository server
changed since its approval is held, never started by the restart."""

from __future__ import annotations

import sys
from pathlib import Path

from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.ui.mcp_words import restarted_words
from tests.support.approvers import ScriptedApprover
from tests.support.servers import FAULT_SERVER, USER, fault_args_once, fault_spec


def needs_marker(marker: Path, pid_file: Path) -> StdioServerSpec:
    env = (("FAULT_PID_FILE", str(pid_file)),)
    return StdioServerSpec("flaky", sys.executable, USER, args=fault_args_once(marker), env=env)


async def test_a_failed_server_runs_after_a_restart_and_the_others_are_left_alone(tmp_path: Path) -> None:
    marker, pids = tmp_path / "db", tmp_path / "pids"
    config = McpConfig((needs_marker(marker, pids), fault_spec(pid_file=pids, name="steady")))
    runtime = McpRuntime(tmp_path, config, HeadlessApprover(), store=TrustStore())
    try:
        await runtime.start()
        assert runtime.hub.statuses()["flaky"].phase == "failed"
        steady = runtime.hub.connection("steady")
        assert steady is not None
        assert not any(name.startswith("flaky__") for name in runtime.router.current().routes)
        marker.write_text("ready")
        restarted = await runtime.restart_server("flaky")
        assert restarted.summary is not None
        assert restarted.summary.status.phase == "running"
        assert any(name.startswith("flaky__") for name in runtime.router.current().routes)
        assert runtime.hub.connection("steady") is steady  # not restarted with it
        [line] = restarted_words(restarted)
        assert line.startswith(f"Restarted 'flaky': running, {len(restarted.summary.tools)} tools")
    finally:
        await runtime.close()


async def test_a_running_server_is_replaced_by_a_new_process(tmp_path: Path) -> None:
    config = McpConfig((fault_spec(pid_file=tmp_path / "pids", name="steady"),))
    runtime = McpRuntime(tmp_path, config, HeadlessApprover(), store=TrustStore())
    try:
        await runtime.start()
        before = runtime.hub.connection("steady")
        assert before is not None
        old_pid = before.pid
        await runtime.restart_server("steady")
        after = runtime.hub.connection("steady")
        assert after is not None
        assert after.pid != old_pid
        assert before.session.closed is not None  # the old one was ended, not left behind
        assert list(runtime.hub.servers) == ["steady"]
    finally:
        await runtime.close()


async def test_an_unknown_name_lists_the_configured_servers(tmp_path: Path) -> None:
    config = McpConfig((fault_spec(pid_file=tmp_path / "pids", name="steady"),))
    runtime = McpRuntime(tmp_path, config, HeadlessApprover(), store=TrustStore())
    try:
        restarted = await runtime.restart_server("nope")
        assert restarted.summary is None
        assert restarted_words(restarted) == ["No MCP server named 'nope' (configured: steady)."]
    finally:
        await runtime.close()


async def test_a_restart_passes_the_launch_gate(tmp_path: Path) -> None:
    """A repository server approved, then its script edited: the restart holds it for approval."""
    (tmp_path / "server.py").write_text(FAULT_SERVER.read_text())
    spec = StdioServerSpec("helper", "python3", Provenance("workspace", str(tmp_path / ".mcp.json")),
                           args=("server.py",))  # fmt: skip
    approver = ScriptedApprover("once")
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), approver, store=TrustStore())
    try:
        await runtime.start()
        assert runtime.hub.connection("helper") is not None
        (tmp_path / "server.py").write_text("import os\nos._exit(0)\n")
        runtime.attach(HeadlessApprover(), lambda _notice: None)  # nobody to ask now
        restarted = await runtime.restart_server("helper")
        assert runtime.hub.connection("helper") is None
        assert restarted.summary is not None
        assert restarted.summary.status.phase == "waiting_approval"
        [line] = restarted_words(restarted)
        assert line.startswith("'helper' was not started: server.py changed since you approved")
    finally:
        await runtime.close()
