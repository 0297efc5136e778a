"""The launch gate in the runtime, with a scripted approver and the real hub. Load-bearing
direction: what starts is what the user approved — a script that changes while its card is
open is not started (its files are hashed again right before the spawn), and the notice names
the file. The second corpus: an unchanged approved script starts, and the approval recorded is
the one the card showed."""

from __future__ import annotations

from pathlib import Path

from levelcode.core.approvals import ApprovalRequest, Choice
from levelcode.mcp.config.specs import McpConfig, Provenance, StdioServerSpec
from levelcode.mcp.gates.status import LaunchHeld, McpNotice
from levelcode.mcp.runtime import McpRuntime
from levelcode.mcp.trust_store import TrustStore
from levelcode.ui.mcp_words import notice_words, summary_state
from tests.support.approvers import ScriptedApprover
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


async def test_an_approved_unchanged_script_starts(tmp_path: Path) -> None:
    spec = repo_server(tmp_path)
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), ScriptedApprover("once"), store=TrustStore())
    try:
        await runtime.start()
        assert runtime.hub.connection("helper") is not None
        assert TrustStore().state(tmp_path, spec) == "approved"
    finally:
        await runtime.close()
