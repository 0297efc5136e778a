"""Work done once: the user's settings parsed once per session, a launch resolved once (even one
that cannot be), a repository server's files hashed once for the views (not again for each) and
once for all of `mcp get`, `/new` building no second hub, and an MCP call's arguments masked
once. Load-bearing direction: each test counts the work and fails when it is done twice. The
second corpus is the behaviour around it, asserted alongside: what is counted once still
happens, and says the same. Where no process is part of what is counted, the servers are the
fault server in memory (the memory_servers fixture); a session's early start, a launch's
resolving and `mcp get` spawn for real."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest

from levelcode.agent.toolbox import Toolbox
from levelcode.cli.mcp.manage import mcp_get
from levelcode.cli.start.light_start import prepare_session
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.messages import ToolUse
from levelcode.mcp.calls import router as router_module
from levelcode.mcp.calls.call_card import mask_arguments
from levelcode.mcp.config import tiers
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch import resolve, trust_store
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.server_plan import plan_servers
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live import hub as hub_module
from levelcode.mcp.live.early_start import start_planned
from levelcode.mcp.live.runtime import McpRuntime
from levelcode.mcp.live.session_hub import make_hub
from levelcode.platform.settings_files import load_settings
from levelcode.tools.base import ToolContext
from tests.support.approvers import ScriptedApprover
from tests.support.memory_servers import MemoryServers
from tests.support.servers import FAULT_SERVER

F = TypeVar("F", bound=Callable[..., Any])


def counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, calls: list[object]) -> None:
    """Count each call of `owner.name` (looked up where its callers find it), keeping what it does."""
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


@pytest.fixture
def user_server(isolated_home: Path) -> Path:
    """A settings file with one user server (the fault server) and a provider key."""
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    settings = isolated_home / "settings.json"
    settings.write_text(json.dumps({"apiKey": "test-key", "mcpServers": {"fault": entry}}))
    return settings


def _runtime(workspace: Path, settings_file: Path, servers: MemoryServers) -> McpRuntime:
    """The runtime of a session with these settings, its servers (the user's "fault") in memory."""
    settings = load_settings(workspace, settings_file)
    config = load_mcp_config(workspace, settings)
    runtime = McpRuntime(workspace, config, HeadlessApprover(), settings=settings, store=TrustStore())
    servers.add(name="fault")
    runtime.hub.transports = servers.plan
    return runtime


async def test_a_session_parses_the_users_settings_once(
    user_server: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[object] = []
    counting(monkeypatch, tiers, "parse_server_map", parsed)
    args = argparse.Namespace(workspace=str(tmp_path), provider="anthropic", model="claude-sonnet-5-5")
    start = prepare_session(args)  # the early start, then the runtime: both need the user's servers
    try:
        assert [spec.name for spec in start.mcp.config.servers] == ["fault"]
        user_parses = [raw for raw in parsed if isinstance(raw, Mapping) and "fault" in raw]
        assert len(user_parses) == 1
    finally:
        await start.mcp.close()


async def test_a_launch_that_cannot_be_resolved_is_resolved_once_and_its_reason_kept(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = {"command": sys.executable, "env": {"TOKEN": "${SURELY_UNSET_VARIABLE}"}}
    (isolated_home / "settings.json").write_text(json.dumps({"mcpServers": {"needs": entry}}))
    resolved: list[object] = []
    counting(monkeypatch, resolve, "resolve_launch", resolved)
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    early = start_planned(plan_servers(tmp_path, settings))
    assert early.started == []
    hub = make_hub(tmp_path, settings, early=early)
    spec = early.plan.config.server("needs")
    assert spec is not None
    await hub.start([spec])
    status = hub.statuses()["needs"]
    assert status.phase == "failed"
    assert "SURELY_UNSET_VARIABLE" in (status.detail or "")
    assert len(resolved) == 1


def _repository_server(workspace: Path) -> StdioServerSpec:
    (workspace / "server.py").write_text(FAULT_SERVER.read_text())
    provenance = Provenance("workspace", str(workspace / ".mcp.json"))
    return StdioServerSpec("helper", "python3", provenance, args=("server.py",))


async def test_views_hash_no_file_the_launch_gate_hashed_already(
    memory_servers: MemoryServers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _repository_server(tmp_path)
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), ScriptedApprover("once"), store=TrustStore())
    memory_servers.add(name="helper")  # what the approved launch reaches
    runtime.hub.transports = memory_servers.plan
    hashed: list[object] = []
    try:
        await runtime.start()
        assert runtime.hub.connection("helper") is not None
        counting(monkeypatch, trust_store, "inspect_launch", hashed)
        for _view in range(3):
            (summary,) = runtime.list_view().summaries
            assert summary.trust == "approved"
        assert hashed == []
    finally:
        await runtime.close()


@pytest.mark.parametrize(
    ("approved", "start", "state"),
    [
        (True, True, "running"),
        (False, True, "needs approval"),
        (True, False, None),
    ],
    ids=["approved, started", "never approved, held", "approved, --no-start"],
)
def test_mcp_get_hashes_a_repository_servers_launch_once(
    approved: bool,
    start: bool,
    state: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Its trust, its confinement, whether it may start, its start and its live state: one review
    of the launch, by the launch gate, that every part of `mcp get` reads."""
    (tmp_path / "server.py").write_text(FAULT_SERVER.read_text())
    entry = {"command": sys.executable, "args": ["server.py"]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"helper": entry}}))
    spec = load_mcp_config(tmp_path).server("helper")
    assert spec is not None
    if approved:
        store = TrustStore()
        store.approve(tmp_path, spec, launch_text(spec), store.review(tmp_path, spec).facts)
    hashed: list[object] = []
    counting(monkeypatch, trust_store, "inspect_launch", hashed)
    args = argparse.Namespace(
        workspace=str(tmp_path), name="helper", json=True, no_start=not start, profile=None
    )
    assert mcp_get(args) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["trust"] == ("approved" if approved else "never_approved")
    assert info.get("state") == state
    assert len(hashed) == 1


async def test_a_new_chat_builds_no_second_hub_and_changes_options_only_with_nothing_running(
    memory_servers: MemoryServers, user_server: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[object] = []
    counting(monkeypatch, hub_module.McpHub, "__init__", built)
    runtime = _runtime(tmp_path, user_server, memory_servers)
    hub = runtime.hub
    renewed_with_running: list[bool] = []
    original = hub.renew

    async def renew(options: Any, early: Any = None) -> None:
        await original(options, early)
        renewed_with_running.append(bool(hub.connections()))

    monkeypatch.setattr(hub, "renew", renew)
    try:
        await runtime.start()
        first = hub.options
        await runtime.restart()
        assert runtime.hub is hub
        assert hub.connection("fault") is not None
        assert hub.options is not first  # read again: settings may have changed
        assert len(built) == 1
        assert renewed_with_running == [False]
    finally:
        await runtime.close()


async def test_an_mcp_calls_arguments_are_masked_once(
    memory_servers: MemoryServers, user_server: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    masked: list[object] = []
    counting(monkeypatch, router_module, "mask_arguments", masked)
    runtime = _runtime(tmp_path, user_server, memory_servers)
    runtime.router.tool_policy["fault__echo"] = "allow"
    try:
        await runtime.start()
        toolbox = Toolbox(ToolContext(tmp_path), HeadlessApprover(), [], extra=runtime.router)
        call = toolbox.resolve(ToolUse("t1", "fault__echo", {"message": "sk-secret"}))
        result = await toolbox.run(call)
        assert result.content == "sk-secret"
        assert call.shown_input == mask_arguments({"message": "sk-secret"})
        assert len(masked) == 1
    finally:
        await runtime.close()
