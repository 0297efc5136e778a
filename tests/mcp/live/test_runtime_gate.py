"""The launch gate in the runtime, with a scripted approver and the real hub. Load-bearing
direction: what starts is what the user approved — a script that changes while its card is
open is not started (its files are hashed again right before the spawn), and the notice names
the file. The second corpus: an unchanged approved script starts, and the approval recorded is
the one the card showed, and "approve, sandboxed" (the first answer) is remembered with it and
runs the server confined from then on; an entry that asks for the sandbox where none can be set
up is never started (no card, a notice says why)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from levelcode.core.approvals import ApprovalRequest, Choice
from levelcode.mcp.config.sandbox_entry import SandboxRequest
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.gate import MANY_SERVERS
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.sandboxed_launch import own_folder
from levelcode.mcp.launch.server_box import ServerBox
from levelcode.mcp.launch.status import LaunchHeld, McpNotice
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.ui.mcp_words import notice_words, summary_state
from tests.support.approvers import ScriptedApprover
from tests.support.memory_servers import MemoryServers
from tests.support.sandbox import missing_confinement
from tests.support.servers import FAULT_SERVER


def repo_server(workspace: Path) -> StdioServerSpec:
    (workspace / "server.py").write_text(FAULT_SERVER.read_text())
    return StdioServerSpec("helper", "python3", Provenance("workspace", str(workspace / ".mcp.json")),
                           args=("server.py",))  # fmt: skip


class EditsWhileAsking(ScriptedApprover):
    """Says yes, but the repository rewrites the script while the card is on screen."""

    def __init__(self, script: Path) -> None:
        super().__init__("once")
        self.script = script

    async def decide(self, request: ApprovalRequest) -> Choice:
        self.script.write_text("import os\nos._exit(0)\n")
        return await super().decide(request)


async def test_a_script_changed_while_the_card_is_open_is_not_started(tmp_path: Path) -> None:
    spec = repo_server(tmp_path)
    notes: list[McpNotice] = []
    approver = EditsWhileAsking(tmp_path / "server.py")
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), approver, notify=notes.append, store=TrustStore())
    try:
        await runtime.start()
        assert approver.asked
        assert runtime.hub.connection("helper") is None
        held = [note for note in notes if isinstance(note, LaunchHeld)]
        assert [(n.server, n.trust, n.change) for n in held] == [("helper", "changed", "server.py changed")]
        assert "server.py changed since you approved it" in notice_words(held[0])
        (summary,) = runtime.summaries()
        assert summary_state(summary) == "server.py changed since you approved — needs approval"
    finally:
        await runtime.close()


async def test_an_approved_script_changed_while_another_servers_card_is_open_is_not_started(
    tmp_path: Path,
) -> None:
    """The gate hashed the approved server's script before the other's card went up; the card may
    stay open for minutes, so the script is hashed again before either starts."""
    for folder in ("approved", "asking"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "server.py").write_text(FAULT_SERVER.read_text())
    approved = dataclasses.replace(repo_server(tmp_path), args=("approved/server.py",))
    asking = dataclasses.replace(approved, name="other", args=("asking/server.py",))
    store = TrustStore()
    store.approve(tmp_path, approved, launch_text(approved), store.review(tmp_path, approved).facts)
    notes: list[McpNotice] = []
    approver = EditsWhileAsking(tmp_path / "approved" / "server.py")
    runtime = McpRuntime(tmp_path, McpConfig((approved, asking)), approver, notify=notes.append, store=store)
    try:
        await runtime.start()
        assert len(approver.asked) == 1  # the other's card; the approved one starts unasked
        assert runtime.hub.connection("helper") is None
        assert runtime.hub.connection("other") is not None
        held = [(n.server, n.trust, n.change) for n in notes if isinstance(n, LaunchHeld)]
        assert held == [("helper", "changed", "approved/server.py changed")]
    finally:
        await runtime.close()


async def test_an_approved_unchanged_script_starts(tmp_path: Path, memory_servers: MemoryServers) -> None:
    """The gate hashes the real script; what it lets start runs in memory (the memory_servers
    fixture): that it started is the point here, not how a process runs."""
    spec = repo_server(tmp_path)
    memory_servers.add(name="helper")
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), ScriptedApprover("once"), store=TrustStore())
    runtime.hub.transports = memory_servers.plan
    try:
        await runtime.start()
        assert runtime.hub.connection("helper") is not None
        assert memory_servers["helper"].methods()[0] == "initialize"
        assert TrustStore().state(tmp_path, spec) == "approved"
    finally:
        await runtime.close()


# --- the sandbox answer: remembered with the approval, and part of it ---------------------------


async def whereami(runtime: McpRuntime) -> dict[str, Any]:
    outcome = await runtime.hub.call("helper", "whereami", {})
    assert not outcome.is_error, outcome.text
    seen: dict[str, Any] = json.loads(outcome.text)
    return seen


@pytest.mark.sandbox
async def test_approve_sandboxed_is_remembered_and_runs_it_confined_next_time(tmp_path: Path) -> None:
    spec = repo_server(tmp_path)
    approver = ScriptedApprover("sandboxed")
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), approver, store=TrustStore())
    try:
        await runtime.start()
        assert approver.asked[0].answers[0].choice == "sandboxed"  # the first answer offered
        assert (await whereami(runtime))["env"]["TMPDIR"] == "/tmp"
    finally:
        await runtime.close()
    assert TrustStore().sandbox_choice(tmp_path, spec) == "own"
    later = McpRuntime(tmp_path, McpConfig((spec,)), ScriptedApprover(), store=TrustStore())
    try:
        await later.start()  # approved: no card, and confined as approved
        seen = await whereami(later)
        assert seen["env"]["XDG_CACHE_HOME"] == str(own_folder(spec, tmp_path, later.hub.options.servers_dir))
        (summary,) = later.summaries()
        assert summary.sandbox == ServerBox(by="approval")
    finally:
        await later.close()


async def test_approve_unconfined_and_then_the_entry_asks_for_the_sandbox(tmp_path: Path) -> None:
    spec = repo_server(tmp_path)
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), ScriptedApprover("once"), store=TrustStore())
    try:
        await runtime.start()
        assert "TMPDIR" not in (await whereami(runtime))["env"]
    finally:
        await runtime.close()
    assert TrustStore().sandbox_choice(tmp_path, spec) is None
    asking = dataclasses.replace(spec, sandbox=SandboxRequest())
    assert TrustStore().state(tmp_path, asking) == "changed"  # a change to the key asks again


async def test_an_entry_that_asks_for_the_sandbox_where_there_is_none_does_not_start(tmp_path: Path) -> None:
    spec = dataclasses.replace(repo_server(tmp_path), sandbox=SandboxRequest())
    notes: list[McpNotice] = []
    approver = ScriptedApprover("once")
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), approver, notify=notes.append, store=TrustStore())
    runtime.hub.options = dataclasses.replace(runtime.hub.options, sandbox=missing_confinement())
    try:
        await runtime.start()
        assert approver.asked == []  # no card: there is no answer that could start it
        assert runtime.hub.connection("helper") is None
        assert [notice_words(n) for n in notes] == [
            "MCP server 'helper' failed: its entry asks for the sandbox, but no sandbox can be set up "
            "here: bwrap was not found on PATH; not started"
        ]
    finally:
        await runtime.close()


async def test_servers_denied_all_at_once_show_as_denied_in_the_views(tmp_path: Path) -> None:
    """The many-servers card's "deny all" is an answer like a server's own card: the views show
    each launch as denied (remembered), not as it was reviewed before the answer."""
    specs = tuple(
        dataclasses.replace(repo_server(tmp_path), name=f"helper{n}") for n in range(MANY_SERVERS + 1)
    )
    approver = ScriptedApprover("deny")
    runtime = McpRuntime(tmp_path, McpConfig(specs), approver, store=TrustStore())
    try:
        await runtime.start()
        assert len(approver.asked) == 1  # the card that lists them all, and no other
        states = {summary.name: summary_state(summary) for summary in runtime.summaries()}
        assert states == {
            spec.name: f"denied — `levelcode mcp trust {spec.name}` to reconsider" for spec in specs
        }
    finally:
        await runtime.close()
