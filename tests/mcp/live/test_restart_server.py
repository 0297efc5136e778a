"""Restarting one server (`/mcp restart NAME`) through the runtime, on in-memory servers (the
memory_servers fixture: the runtime, hub, gate and router are the real ones). Load-bearing: a
server that failed at start runs after a restart once what it lacked is there, and its tools reach
the router; a running server is replaced by a new connection and the old one ended; the other
servers are left alone; and a restart goes through the launch gate like any start — a repository
server changed since its approval is held, never started by the restart. (A restart's new process,
by pid: tests/cli/repl/test_mcp_restart_command.py runs a real one.)"""

from __future__ import annotations

from pathlib import Path

from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.ui.mcp_words import restarted_words
from tests.support.approvers import ScriptedApprover
from tests.support.memory_servers import MemoryServers
from tests.support.servers import FAULT_SERVER, USER


def runtime_of(tmp_path: Path, memory_servers: MemoryServers, *specs: StdioServerSpec) -> McpRuntime:
    runtime = McpRuntime(tmp_path, McpConfig(specs), HeadlessApprover(), store=TrustStore())
    runtime.hub.transports = memory_servers.plan
    return runtime


async def test_a_failed_server_runs_after_a_restart_and_the_others_are_left_alone(
    tmp_path: Path, memory_servers: MemoryServers
) -> None:
    flaky = StdioServerSpec("flaky", "in-memory", USER)  # no server of that name yet: its start fails
    runtime = runtime_of(tmp_path, memory_servers, flaky, memory_servers.add(name="steady"))
    try:
        await runtime.start()
        assert runtime.hub.statuses()["flaky"].phase == "failed"
        steady = runtime.hub.connection("steady")
        assert steady is not None
        assert not any(name.startswith("flaky__") for name in runtime.router.current().routes)
        memory_servers.add(name="flaky")  # what it lacked is there now
        restarted = await runtime.restart_server("flaky")
        assert restarted.summary is not None
        assert restarted.summary.status.phase == "running"
        assert any(name.startswith("flaky__") for name in runtime.router.current().routes)
        assert runtime.hub.connection("steady") is steady  # not restarted with it
        assert len(memory_servers["steady"].transports) == 1
        [line] = restarted_words(restarted)
        assert line.startswith(f"Restarted 'flaky': running, {len(restarted.summary.tools)} tools")
    finally:
        await runtime.close()


async def test_a_running_server_is_replaced_by_a_new_connection(
    tmp_path: Path, memory_servers: MemoryServers
) -> None:
    runtime = runtime_of(tmp_path, memory_servers, memory_servers.add(name="steady"))
    try:
        await runtime.start()
        before = runtime.hub.connection("steady")
        assert before is not None
        await runtime.restart_server("steady")
        after = runtime.hub.connection("steady")
        assert after is not None
        assert after is not before
        first, second = memory_servers["steady"].transports
        assert first.closed  # the old one was ended, not left behind
        assert not second.closed
        assert list(runtime.hub.servers) == ["steady"]
    finally:
        await runtime.close()


async def test_an_unknown_name_lists_the_configured_servers(
    tmp_path: Path, memory_servers: MemoryServers
) -> None:
    runtime = runtime_of(tmp_path, memory_servers, memory_servers.add(name="steady"))
    try:
        restarted = await runtime.restart_server("nope")
        assert restarted.summary is None
        assert restarted_words(restarted) == ["No MCP server named 'nope' (configured: steady)."]
    finally:
        await runtime.close()


async def test_a_restart_passes_the_launch_gate(tmp_path: Path, memory_servers: MemoryServers) -> None:
    """A repository server approved, then its script edited: the restart holds it for approval.
    The gate hashes the real script; what it lets start runs in memory."""
    (tmp_path / "server.py").write_text(FAULT_SERVER.read_text())
    memory_servers.add(name="helper")
    spec = StdioServerSpec("helper", "python3", Provenance("workspace", str(tmp_path / ".mcp.json")),
                           args=("server.py",))  # fmt: skip
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), ScriptedApprover("once"), store=TrustStore())
    runtime.hub.transports = memory_servers.plan
    try:
        await runtime.start()
        assert runtime.hub.connection("helper") is not None
        (tmp_path / "server.py").write_text("import os\nos._exit(0)\n")
        runtime.attach(HeadlessApprover(), lambda _notice: None)  # nobody to ask now
        restarted = await runtime.restart_server("helper")
        assert runtime.hub.connection("helper") is None
        assert len(memory_servers["helper"].transports) == 1  # never started again
        assert restarted.summary is not None
        assert restarted.summary.status.phase == "waiting_approval"
        [line] = restarted_words(restarted)
        assert line.startswith("'helper' was not started: server.py changed since you approved")
    finally:
        await runtime.close()
