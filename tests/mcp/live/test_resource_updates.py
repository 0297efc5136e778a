"""Resource updates reach the session: a resource the model read, or the user attached, is watched
(2026-07-28: `subscriptions/listen` with `resourceSubscriptions`, against the official SDK's
server; 2025-11-25: `resources/subscribe`, against server-everything), an update drops its cached
read, the hub's listener hears it as it arrives (the REPL says it above an idle prompt), `/mcp`
shows it, and on the next turn the model is told — an attached resource's new copy
with it. Load-bearing direction: an update for a resource the session does not use is not
reported, and each update is reported once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from levelcode.agent.events import Notice, RecordingSink
from levelcode.agent.loop import Agent
from levelcode.agent.toolbox import Toolbox
from levelcode.cli.repl.mcp_prompt_parts import McpPromptParts
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.resource_changes import ResourceChanged
from levelcode.mcp.calls.router import McpRouter
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import McpConnection
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.server_content import read_resource
from levelcode.tools.base import ToolContext
from tests.fakes.scripted_server import Reply
from tests.providers.conftest import api, connect
from tests.providers.support import Api, Connect
from tests.support.http_servers import running, sdk_server
from tests.support.servers import node_server

USER = Provenance("user", "/test/settings.json")
__all__ = ["api", "connect"]  # the providers' fixtures: both APIs, as the agent's tests use them


async def started(tmp_path: Path, spec: HttpServerSpec | StdioServerSpec) -> tuple[McpHub, McpConnection]:
    hub = McpHub(ConnectOptions(workspace=tmp_path, startup_timeout=30, call_timeout=30))
    await hub.start([spec])
    connection = hub.connection(spec.name)
    assert connection is not None, hub.servers[spec.name].status
    return hub, connection


async def until_updated(connection: McpConnection, uri: str) -> None:
    async with asyncio.timeout(15):
        while uri not in connection.listening.pending:
            await asyncio.sleep(0.05)


async def test_a_2026_07_28_update_reaches_the_session_once_and_drops_the_cached_read(tmp_path: Path) -> None:
    with running(sdk_server("--cache-ms", "600000")) as server:
        hub, connection = await started(tmp_path, HttpServerSpec(name="sdk", url=server.url, provenance=USER))
        heard: list[tuple[str, str]] = []
        hub.on_resource_updated = lambda server, uri: heard.append((server, uri))  # as it arrives
        try:
            assert connection.info.resources_subscribe
            before = await hub.resource_call("sdk", "read_resource", {"uri": "test://note"})
            assert before.text.endswith("first version of the note")
            await read_resource(connection, "test://greeting")  # in use too, never changes
            await hub.call("sdk", "edit_note", {"text": "second version"})
            await until_updated(connection, "test://note")
            changes = await hub.resource_changes()
            again = await hub.resource_changes()
            after = await hub.resource_call("sdk", "read_resource", {"uri": "test://note"})
            facts_watched = len(connection.listening.watched)
        finally:
            await hub.reap_all()
    assert changes == (ResourceChanged("sdk", "test://note"),)
    assert heard == [("sdk", "test://note")]
    assert again == ()
    assert after.text.endswith("second version")  # the cached read (TTL 10 min) was dropped
    assert facts_watched == 2


async def test_a_change_the_server_publishes_while_the_resource_is_read_reaches_the_session(
    tmp_path: Path,
) -> None:
    with running(sdk_server()) as server:
        hub, connection = await started(tmp_path, HttpServerSpec(name="sdk", url=server.url, provenance=USER))
        try:
            read = await hub.resource_call("sdk", "read_resource", {"uri": "test://moving"})
            await until_updated(connection, "test://moving")
            changes = await hub.resource_changes()
        finally:
            await hub.reap_all()
    assert read.text.endswith("version 1")
    assert changes == (ResourceChanged("sdk", "test://moving"),)


async def test_an_attached_resource_is_read_again_and_the_model_gets_the_new_copy(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    with running(sdk_server()) as server:
        hub, connection = await started(tmp_path, HttpServerSpec(name="sdk", url=server.url, provenance=USER))
        router = McpRouter(hub, {}, HeadlessApprover(), reserved=(), settings_file=tmp_path / "s.json")
        sink = RecordingSink()
        with api.fake([Reply(text="noted"), Reply(text="seen")]) as model:
            toolbox = Toolbox(ToolContext(tmp_path), HeadlessApprover(), [], extra=router)
            agent = Agent(connect(model), toolbox, system="You are a test.", sink=sink)
            try:
                attached = await McpPromptParts(hub).attach("sdk", "test://note")
                await agent.run_turn("summarise @sdk:test://note", [attached])
                await hub.call("sdk", "edit_note", {"text": "the deadline moved to Friday"})
                await until_updated(connection, "test://note")
                await agent.run_turn("and now?")
            finally:
                await hub.reap_all()
            second = json.dumps(model.requests[-1].body)
    assert "first version of the note" in json.dumps(model.requests[0].body)
    assert "MCP resources this conversation uses changed" in second
    assert "sdk:test://note (attached): its current contents follow" in second
    assert "the deadline moved to Friday" in second
    notices = [e.text for e in sink.events if isinstance(e, Notice)]
    assert "MCP resource changed: @sdk:test://note (the new copy goes with your message)" in notices


async def test_a_2025_11_25_server_is_subscribed_and_its_update_reaches_the_session(tmp_path: Path) -> None:
    spec = StdioServerSpec(name="everything", command=node_server("mcp-server-everything"), provenance=USER)
    hub, connection = await started(tmp_path, spec)
    try:
        assert connection.info.era == "legacy"
        assert connection.info.resources_subscribe
        resources = await connection.listing("resources/list", "resources")
        uri = str(resources[0]["uri"])
        other = str(resources[1]["uri"])
        assert not (await read_resource(connection, uri)).is_error
        await hub.call("everything", "toggle-subscriber-updates", {})
        await until_updated(connection, uri)
        changes = await hub.resource_changes()
    finally:
        await hub.reap_all()
    assert changes == (ResourceChanged("everything", uri),)
    assert other not in connection.listening.watched
