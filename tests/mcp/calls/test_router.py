"""The MCP router (gates G2/G3) with the real hub and the fault server, in memory (the
memory_servers fixture: the hub's own transport seam). Load-bearing direction: a call
runs without asking only when the user's allow-list allows it; with nobody to ask it is refused
and never reaches the server; a destructive tool is never "always allowed". The second corpus:
allow-listed calls run, and an interactive yes runs exactly that call."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from levelcode.core.approvals import HeadlessApprover
from levelcode.core.messages import ToolUse
from levelcode.core.outcome import ToolOutcome
from levelcode.mcp.calls.router import McpRouter
from levelcode.mcp.config.allow_rules import canonical_hash
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.hub import McpHub
from tests.support.approvers import ScriptedApprover
from tests.support.memory_servers import MemoryServers

BUILTINS = {"read_file", "write_file", "run_command"}


@pytest.fixture
async def hub(memory_servers: MemoryServers, tmp_path: Path) -> AsyncIterator[McpHub]:
    hub = McpHub(ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    await hub.start([memory_servers.add("--odd-names")])
    yield hub
    await hub.reap_all()


def _router(hub: McpHub, approver: Any, policy: dict[str, str], settings: Path) -> McpRouter:
    router = McpRouter(hub, policy, approver, reserved=BUILTINS, settings_file=settings)
    router.rebuild()
    return router


def _marker_call(router: McpRouter, tool: str, marker: Path) -> ToolUse:
    name = next(t.name for t in router.specs() if router.catalog.routes[t.name].tool == tool)
    return ToolUse("call-1", name, {"path": str(marker)})


async def test_allow_listed_tool_runs_without_asking(hub: McpHub, tmp_path: Path) -> None:
    approver = ScriptedApprover()
    router = _router(hub, approver, {"fault__touch_marker": "allow"}, tmp_path / "settings.json")
    marker = tmp_path / "marker"
    assert await router.call(_marker_call(router, "touch_marker", marker)) == ToolOutcome("touch_marker done")
    assert marker.exists()
    assert approver.asked == []


@pytest.mark.parametrize("policy", [{}, {"fault__echo": "allow"}, {"other__*": "allow"}, {"*": "ask"}])
async def test_not_allow_listed_is_refused_headless_and_never_reaches_the_server(
    hub: McpHub, tmp_path: Path, policy: dict[str, str]
) -> None:
    router = _router(hub, HeadlessApprover(), policy, tmp_path / "settings.json")
    marker = tmp_path / "marker"
    outcome = await router.call(_marker_call(router, "touch_marker", marker))
    text, is_error = outcome.text, outcome.is_error
    assert is_error
    assert text.startswith("ERROR: MCP tool 'fault__touch_marker' was not run")
    assert "Do not retry" in text
    assert '"fault__touch_marker": "allow"' in text
    assert not marker.exists()


async def test_destructive_tool_asks_even_when_allow_listed_and_offers_no_always(
    hub: McpHub, tmp_path: Path
) -> None:
    approver = ScriptedApprover("deny")
    router = _router(hub, approver, {"*": "allow"}, tmp_path / "settings.json")
    marker = tmp_path / "marker"
    outcome = await router.call(_marker_call(router, "delete_everything", marker))
    text, is_error = outcome.text, outcome.is_error
    assert is_error
    assert "destructive" in text
    assert "mcpToolPolicy" not in text
    assert not marker.exists()
    (card,) = approver.asked
    assert card.allow_always is False
    assert card.warning == "the server marks this tool destructive"
    headless = _router(hub, HeadlessApprover(), {"*": "allow"}, tmp_path / "settings.json")
    outcome = await headless.call(_marker_call(headless, "delete_everything", marker))
    text, _ = outcome.text, outcome.is_error
    assert "mcpToolPolicy" not in text
    assert not marker.exists()


async def test_interactive_once_runs_and_always_writes_the_user_allow_list(
    hub: McpHub, tmp_path: Path
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"model": "keep-me", "mcpToolPolicy": {"x__y": "ask"}}))
    approver = ScriptedApprover("once", "always")
    router = _router(hub, approver, {}, settings)
    first, second, third = (tmp_path / n for n in ("one", "two", "three"))
    assert (await router.call(_marker_call(router, "touch_marker", first))).is_error is False
    assert json.loads(settings.read_text())["mcpToolPolicy"] == {"x__y": "ask"}
    card = approver.asked[0]
    assert card.title == "MCP call · fault · touch_marker"
    assert f'"path": "{first}"' in "\n".join(card.body)
    assert card.allow_always
    assert (await router.call(_marker_call(router, "touch_marker", second))).is_error is False
    saved = json.loads(settings.read_text())
    recorded = {  # the tool as the user saw it, as the server sent it: canonical JSON, SHA-256
        "description": canonical_hash("fault tool touch_marker"),
        "inputSchema": canonical_hash({"type": "object", "properties": {}}),
        "annotations": canonical_hash(None),
    }
    assert saved == {
        "model": "keep-me",
        "mcpToolPolicy": {
            "x__y": "ask",
            "fault__touch_marker": {"decision": "allow", "definition": recorded},
        },
    }
    assert (await router.call(_marker_call(router, "touch_marker", third))).is_error is False
    assert len(approver.asked) == 2  # the third call was allowed by the new entry
    assert first.exists()
    assert second.exists()
    assert third.exists()


async def test_denied_call_tells_the_model_not_to_retry(hub: McpHub, tmp_path: Path) -> None:
    router = _router(hub, ScriptedApprover("deny"), {}, tmp_path / "settings.json")
    marker = tmp_path / "marker"
    outcome = await router.call(_marker_call(router, "touch_marker", marker))
    text, is_error = outcome.text, outcome.is_error
    assert is_error
    assert "the user denied the call" in text
    assert "Do not retry" in text
    assert not marker.exists()


async def test_colliding_and_illegal_names_are_renamed_and_still_route_home(
    hub: McpHub, tmp_path: Path
) -> None:
    router = _router(hub, HeadlessApprover(), {"*": "allow"}, tmp_path / "settings.json")
    names = [t.name for t in router.specs()]
    assert "read_file" not in names
    assert all(len(n) <= 64 and n.replace("_", "").replace("-", "").isalnum() for n in names)
    odd = next(n for n in names if router.catalog.routes[n].tool == "bad name/with:chars")
    assert await router.call(ToolUse("c", odd, {})) == ToolOutcome("bad name/with:chars called")


async def test_arguments_are_masked_wherever_they_are_shown(hub: McpHub, tmp_path: Path) -> None:
    router = _router(hub, HeadlessApprover(), {}, tmp_path / "settings.json")
    assert router.shown_input("fault__echo", {"token": "ghp_secret", "n": 3}) == {
        "token": "<masked>",
        "n": "<masked>",
    }


async def test_always_on_a_destructive_tool_never_allow_lists_it(hub: McpHub, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    approver = ScriptedApprover("always", "deny")
    router = _router(hub, approver, {}, settings)
    first, second = tmp_path / "one", tmp_path / "two"
    assert (await router.call(_marker_call(router, "delete_everything", first))).is_error is False  # ran once
    assert not settings.exists()
    assert "fault__delete_everything" not in router.tool_policy
    assert (
        await router.call(_marker_call(router, "delete_everything", second))
    ).is_error is True  # asked again
    assert len(approver.asked) == 2
    assert not second.exists()


async def test_deferred_tools_are_found_by_tool_search_and_still_gated(hub: McpHub, tmp_path: Path) -> None:
    from levelcode.core.tool_offers import DeferredTool
    from levelcode.mcp.calls.deferral import ToolSearchPolicy

    router = _router(hub, HeadlessApprover(), {}, tmp_path / "settings.json")
    router.search_policy = ToolSearchPolicy("always")
    specs = router.specs()
    assert specs[0].name == "tool_search"
    assert all(isinstance(t, DeferredTool) for t in specs[1:])
    assert router.shown_input("tool_search", {"query": "touch"}) == {"query": "touch"}
    found = await router.call(ToolUse("s", "tool_search", {"query": "touch marker"}))
    assert found.references[0] == "fault__touch_marker"
    assert not found.is_error
    empty = await router.call(ToolUse("s", "tool_search", {"query": ""}))
    assert empty.is_error
    assert 'needs a "query"' in empty.text
    marker = tmp_path / "marker"
    refused = await router.call(ToolUse("c", "fault__touch_marker", {"path": str(marker)}))
    assert refused.text.startswith("ERROR: MCP tool 'fault__touch_marker' was not run")
    assert not marker.exists()
    router.search_policy = None
    assert router.route("tool_search") is None
