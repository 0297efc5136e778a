"""The one launch gate, once through each caller: the REPL and `run` (the runtime, with the
terminal's approver or nobody), `mcp trust`, `mcp login`, `mcp list` and `mcp get`. Each test
meets a repository server whose launch the user denied before — a fact only the gate knows, so a
caller that went around the gate would ask, start or contact it. Load-bearing direction: a denied
launch is never started, contacted nor asked about again, except by `mcp trust`, which forgets
the denial and asks; with nobody to ask, nothing starts. The second corpus: the same launch,
approved, starts for every caller, and many cards at once come after one card listing them all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.gate import MANY_SERVERS, LaunchGate
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.status import LaunchesDenied, LaunchHeld, McpNotice
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.ui.mcp_words import notice_words
from tests.fakes.oauth_server import authorization_server
from tests.support.approvers import ScriptedApprover
from tests.support.cli import run_cli
from tests.support.servers import FAULT_SERVER


def repo_spec(workspace: Path, name: str = "helper") -> StdioServerSpec:
    (workspace / "server.py").write_text(FAULT_SERVER.read_text())
    provenance = Provenance("workspace", str(workspace / ".mcp.json"))
    return StdioServerSpec(name, sys.executable, provenance, args=("server.py",))


def write_config(workspace: Path, entries: dict[str, dict[str, object]]) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": entries}))


def denied_before(workspace: Path, spec: StdioServerSpec) -> None:
    store = TrustStore()
    store.deny(workspace, spec, launch_text(spec), store.review(workspace, spec).facts)


# --- the REPL and `run`: the runtime passes every server through the gate -------------------------


async def test_the_repl_is_not_asked_again_about_a_launch_it_denied(tmp_path: Path) -> None:
    spec = repo_spec(tmp_path)
    first = ScriptedApprover("deny")
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), first, store=TrustStore())
    try:
        await runtime.start()
    finally:
        await runtime.close()
    assert len(first.asked) == 1
    assert TrustStore().state(tmp_path, spec) == "denied"
    notes: list[McpNotice] = []
    later = ScriptedApprover()  # answers nothing: a card would fail the test
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), later, notify=notes.append, store=TrustStore())
    try:
        await runtime.start()
        assert later.asked == []
        assert runtime.hub.connection("helper") is None
        assert notes == [LaunchesDenied(("helper",))]
        assert notice_words(notes[0]) == (
            "MCP server you denied here before not started: helper. "
            "To reconsider one: levelcode mcp trust helper"
        )
    finally:
        await runtime.close()


async def test_a_headless_run_holds_a_new_launch_and_names_the_command_that_approves_it(
    tmp_path: Path,
) -> None:
    spec = repo_spec(tmp_path)
    notes: list[McpNotice] = []
    runtime = McpRuntime(
        tmp_path, McpConfig((spec,)), HeadlessApprover(), notify=notes.append, store=TrustStore()
    )
    try:
        await runtime.start()
        assert runtime.hub.connection("helper") is None
        assert notes == [LaunchHeld("helper", spec.provenance.file, "never_approved")]
        assert TrustStore().denial(tmp_path, "helper") is None  # nobody said no: nothing remembered
    finally:
        await runtime.close()


async def test_many_cards_come_after_one_that_lists_them_and_deny_all_is_remembered(tmp_path: Path) -> None:
    specs = tuple(repo_spec(tmp_path, f"server{i}") for i in range(MANY_SERVERS + 1))
    approver = ScriptedApprover("deny")
    gate = LaunchGate(tmp_path, TrustStore())
    admission = await gate.admit(specs, approver)
    assert [card.title for card in approver.asked] == [f"{len(specs)} MCP servers want to start"]
    assert all(f"server{i}" in "\n".join(approver.asked[0].body) for i in range(len(specs)))
    assert admission.starting == []
    assert {TrustStore().state(tmp_path, spec) for spec in specs} == {"denied"}
    reviewing = ScriptedApprover("review_each", "once", "deny", "deny")
    for spec in specs:
        TrustStore().forget_denial(tmp_path, spec.name)
    admitted = await LaunchGate(tmp_path, TrustStore()).admit(specs, reviewing)
    assert [card.title for card in reviewing.asked[1:]] == [f"new · MCP server 'server{i}'" for i in range(4)]
    assert [spec.name for spec in admitted.starting] == ["server0"]


async def test_as_many_cards_as_the_threshold_come_without_the_list(tmp_path: Path) -> None:
    specs = tuple(repo_spec(tmp_path, f"server{i}") for i in range(MANY_SERVERS))
    approver = ScriptedApprover(*["deny"] * MANY_SERVERS)
    await LaunchGate(tmp_path, TrustStore()).admit(specs, approver)
    assert [card.title for card in approver.asked] == [f"new · MCP server 'server{i}'" for i in range(3)]


# --- `levelcode mcp trust`: the user asks, so a denial is forgotten and the card shown -------------


async def test_mcp_trust_forgets_the_denial_and_asks(tmp_path: Path) -> None:
    spec = repo_spec(tmp_path)
    denied_before(tmp_path, spec)
    gate = LaunchGate(tmp_path, TrustStore())
    unanswered = await gate.reconsider(spec, HeadlessApprover())
    assert unanswered.outcome == "unanswered"
    assert unanswered.card is not None
    assert "server.py" in "\n".join(unanswered.card.body)
    assert TrustStore().denial(tmp_path, "helper") is None
    approved = await gate.reconsider(spec, ScriptedApprover("sandboxed"))
    assert (approved.outcome, approved.sandbox) == ("approved", "own")
    assert TrustStore().state(tmp_path, spec) == "approved"


def test_mcp_trust_in_a_pipe_prints_the_card_of_a_denied_launch(isolated_home: Path, tmp_path: Path) -> None:
    write_config(tmp_path, {"helper": {"command": sys.executable, "args": ["server.py"]}})
    spec = repo_spec(tmp_path)
    denied_before(tmp_path, spec)
    done = run_cli(["-C", str(tmp_path), "mcp", "trust", "helper"], isolated_home)
    assert done.returncode == 1
    assert "new · MCP server 'helper'" in done.stdout
    assert "nothing approved: run `levelcode mcp trust helper` in a terminal" in done.stderr
    assert TrustStore().denial(tmp_path, "helper") is None


# --- `levelcode mcp login`, `mcp list`, `mcp get`: nobody to ask ---------------------------------


def test_mcp_login_never_contacts_a_denied_server(isolated_home: Path, tmp_path: Path) -> None:
    with authorization_server() as watcher:
        write_config(tmp_path, {"repo": {"url": f"{watcher.issuer}/mcp"}})
        spec = load_mcp_config(tmp_path).server("repo")
        assert spec is not None
        TrustStore().deny(tmp_path, spec, launch_text(spec), None)
        done = run_cli(["-C", str(tmp_path), "mcp", "login", "repo"], isolated_home)
        assert done.returncode == 2
        assert "is not approved here" in done.stderr
        assert watcher.state.seen == []


def test_mcp_list_and_get_say_denied_and_how_to_reconsider(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    entry = {"command": sys.executable, "args": ["server.py"], "env": {"FAULT_PID_FILE": str(marker)}}
    write_config(tmp_path, {"helper": entry})
    (tmp_path / "server.py").write_text(FAULT_SERVER.read_text())
    spec = load_mcp_config(tmp_path).server("helper")
    assert isinstance(spec, StdioServerSpec)
    denied_before(tmp_path, spec)
    listed = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert "helper · denied — `levelcode mcp trust helper` to reconsider · workspace" in listed.stdout
    got = run_cli(["-C", str(tmp_path), "mcp", "get", "helper"], isolated_home)
    assert "live:    not started (denied — `levelcode mcp trust helper` to reconsider)" in got.stdout
    assert not marker.exists()  # the fault server writes its pid there when it starts
    TrustStore().approve(tmp_path, spec, launch_text(spec))
    listed = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert "helper · running · workspace" in listed.stdout  # the second corpus: approved, it starts
    assert marker.exists()


async def test_a_denial_the_store_cannot_record_still_holds_the_server_back_and_is_said(
    tmp_path: Path,
) -> None:
    spec = repo_spec(tmp_path)
    (tmp_path / "state").write_text("a file where the store's folder should be\n")
    gate = LaunchGate(tmp_path, TrustStore(tmp_path / "state" / "trust.json"))
    admission = await gate.admit((spec,), ScriptedApprover("deny"))
    assert admission.starting == []
    (note,) = admission.notices
    assert "could not remember that you denied 'helper'" in notice_words(note)
