"""What servers may ask of LevelCode, over the 2026-07-28 input rounds (the in-memory transport)
and per server entry. Load-bearing direction: with nobody to answer, an elicitation is declined
and the model is told why; sampling is refused unless the user's own entry enables it (a
repository's entry never can); roots are withheld from a server whose entry turns them off.
The second corpus: roots name the workspace and the added folders, and a request that needs
input completes once it is answered."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

import pytest

from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import parse_user_settings, parse_workspace_file
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.call_notes import CallNotes
from levelcode.mcp.live.client_features import UserAnswers, features_for, workspace_roots
from levelcode.mcp.live.connection import McpConnection
from levelcode.mcp.live.server_content import read_resource
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.handshake import ServerInfo
from levelcode.mcp.protocol.session import McpSession
from tests.fakes.memory_transport import MemoryTransport

USER = Provenance("user", "/test/settings.json")


def asking_peer(method: str, params: Mapping[str, object] | None = None):  # type: ignore[no-untyped-def]
    """A modern server that answers every request with one input request first, then echoes the
    answer it got back as text (tools) or as a resource (reads)."""
    seen: list[Mapping[str, object]] = []

    def peer(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
        request_id = message.get("id")
        if not isinstance(request_id, int) or not isinstance(message.get("method"), str):
            return []
        sent = message.get("params")
        assert isinstance(sent, Mapping)
        seen.append(sent)
        answers = sent.get("inputResponses")
        if answers is None:
            ask = {"q": {"method": method, "params": dict(params or {})}}
            return [jsonrpc.Response(request_id, {"resultType": "input_required", "inputRequests": ask})]
        text = repr(dict(answers)) if isinstance(answers, Mapping) else "?"
        if message["method"] == "resources/read":
            return [jsonrpc.Response(request_id, {"contents": [{"uri": "x:/1", "text": text}]})]
        return [jsonrpc.Response(request_id, {"content": [{"type": "text", "text": text}]})]

    return peer, seen


async def _connection(
    peer: object,
    spec: StdioServerSpec,
    tmp_path: Path,
    *extra: Path,
    transport: MemoryTransport | None = None,
) -> McpConnection:
    notes = CallNotes()
    features = features_for(spec, workspace_roots(tmp_path, extra), UserAnswers(), notes.add)
    session = McpSession(transport or MemoryTransport(peer), features=features)  # type: ignore[arg-type]
    await session.open()
    info = ServerInfo("modern", "2026-07-28", offers=("tools", "resources"))
    return McpConnection(spec, session, info, ConnectOptions(workspace=tmp_path), notes)


async def test_headless_elicitation_is_declined_and_the_model_told_why(tmp_path: Path) -> None:
    peer, seen = asking_peer("elicitation/create", {"message": "Your API key?", "requestedSchema": {}})
    connection = await _connection(peer, StdioServerSpec("s", "x", USER), tmp_path)
    outcome = await connection.call_tool("t", {})
    assert seen[1]["inputResponses"] == {"q": {"action": "decline"}}
    assert "{'q': {'action': 'decline'}}" in outcome.text
    assert (
        '[LevelCode: the server asked the user for input ("Your API key?") and LevelCode declined it'
        in outcome.text
    )


async def test_a_note_is_told_to_the_call_it_came_in_not_to_another_in_flight(tmp_path: Path) -> None:
    """Two calls at once on one server: the one whose input request was declined is told so, and
    the other, which ends first, is not (a note once lay in one list shared by every call)."""
    held: dict[object, int] = {}

    def peer(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
        request_id, params = message.get("id"), message.get("params")
        if not isinstance(request_id, int) or not isinstance(params, Mapping) or "name" not in params:
            return []
        if params["name"] == "asks" and "inputResponses" not in params:
            ask = {
                "q": {"method": "elicitation/create", "params": {"message": "Key?", "requestedSchema": {}}}
            }
            return [jsonrpc.Response(request_id, {"resultType": "input_required", "inputRequests": ask})]
        held[params["name"]] = request_id  # answered below, in the order the test needs
        return []

    transport = MemoryTransport(peer)
    connection = await _connection(peer, StdioServerSpec("s", "x", USER), tmp_path, transport=transport)
    asks = asyncio.ensure_future(connection.call_tool("asks", {}))
    plain = asyncio.ensure_future(connection.call_tool("plain", {}))
    await transport.wait_sent(3)  # asks, plain, and asks again with its (declined) input answered
    transport.deliver(jsonrpc.Response(held["plain"], {"content": [{"type": "text", "text": "plain done"}]}))
    plain_outcome = await plain
    transport.deliver(jsonrpc.Response(held["asks"], {"content": [{"type": "text", "text": "asks done"}]}))
    asks_outcome = await asks
    assert plain_outcome.text == "plain done"
    assert asks_outcome.text.startswith("asks done\n[LevelCode: the server asked the user for input")


async def test_sampling_is_refused_unless_the_users_entry_enables_it(tmp_path: Path) -> None:
    peer, seen = asking_peer("sampling/createMessage", {"messages": [], "maxTokens": 5})
    connection = await _connection(peer, StdioServerSpec("s", "x", USER), tmp_path)
    outcome = await connection.call_tool("t", {})
    assert outcome.is_error
    assert len(seen) == 1  # never retried with an answer
    assert 'it is off unless the user\'s own settings say "sampling": true' in outcome.text


async def test_enabled_sampling_with_nobody_to_approve_is_refused(tmp_path: Path) -> None:
    spec = parse_user_settings({"mcpServers": {"s": {"command": "x", "sampling": True}}}, file="/u").servers[
        0
    ]
    assert isinstance(spec, StdioServerSpec)
    peer, _ = asking_peer("sampling/createMessage", {"messages": [], "maxTokens": 5})
    outcome = await (await _connection(peer, spec, tmp_path)).call_tool("t", {})
    assert outcome.is_error
    assert "refused: nobody can approve it here" in outcome.text


async def test_roots_name_the_workspace_and_added_folders(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    peer, _ = asking_peer("roots/list")
    connection = await _connection(peer, StdioServerSpec("s", "x", USER), tmp_path, notes)
    outcome = await read_resource(connection, "x:/1")
    assert tmp_path.as_uri() in outcome.text
    assert notes.as_uri() in outcome.text


async def test_roots_turned_off_for_a_server_are_withheld(tmp_path: Path) -> None:
    spec = parse_user_settings({"mcpServers": {"s": {"command": "x", "roots": False}}}, file="/u").servers[0]
    assert isinstance(spec, StdioServerSpec)
    features = features_for(spec, workspace_roots(tmp_path), UserAnswers())
    assert "roots" not in features.capabilities
    peer, _ = asking_peer("roots/list")
    outcome = await read_resource(await _connection(peer, spec, tmp_path), "x:/1")
    assert "{'q': {'roots': []}}" in outcome.text


@pytest.mark.parametrize(
    ("doc", "tier", "enabled"),
    [
        ({"command": "x", "sampling": True}, "workspace", False),
        ({"command": "x", "sampling": "yes"}, "user", False),
        ({"url": "https://example.com/mcp", "sampling": True}, "workspace", False),
        ({"command": "x"}, "user", False),
        ({"command": "x", "sampling": True}, "user", True),
        ({"url": "https://example.com/mcp", "sampling": True}, "user", True),
    ],
)
def test_only_the_users_own_entry_enables_sampling(doc: dict[str, object], tier: str, enabled: bool) -> None:
    parse = parse_user_settings if tier == "user" else parse_workspace_file
    config = parse({"mcpServers": {"s": doc}}, file="/f")
    assert config.servers[0].client.sampling is enabled
    assert (
        "sampling" in features_for(config.servers[0], workspace_roots(Path("/w")), UserAnswers()).capabilities
    ) is enabled
    if tier == "workspace" and doc.get("sampling") is True:
        assert any("only your own settings" in p.message for p in config.problems)


async def test_resources_and_templates_are_listed_across_pages(tmp_path: Path) -> None:
    from levelcode.mcp.live.server_content import resource_index

    def peer(message: Mapping[str, object]) -> list[jsonrpc.Incoming]:
        request_id, method = message.get("id"), message.get("method")
        if not isinstance(request_id, int):
            return []
        params = message.get("params")
        cursor = params.get("cursor") if isinstance(params, Mapping) else None
        if method == "resources/list":
            page = {"resources": [{"uri": f"x:/{cursor or 0}"}]}
            return [
                jsonrpc.Response(
                    request_id,
                    {**page, **({} if cursor == "2" else {"nextCursor": str(int(cursor or 0) + 1)})},
                )
            ]
        return [jsonrpc.Response(request_id, {"resourceTemplates": [{"uriTemplate": "x:/{n}"}]})]

    connection = await _connection(peer, StdioServerSpec("s", "x", USER), tmp_path)
    resources, templates = await resource_index(connection)
    assert [r["uri"] for r in resources] == ["x:/0", "x:/1", "x:/2"]
    assert [t["uriTemplate"] for t in templates] == ["x:/{n}"]


async def test_sampling_the_organisation_turned_off_is_refused_before_anyone_is_asked(tmp_path: Path) -> None:
    """The user's entry enables sampling and someone could approve it; the organisation's policy
    turns it off: the server (which asks anyway) is refused, and nobody is asked."""
    from levelcode.mcp.config.managed_servers import govern
    from levelcode.policy.managed_policy import ManagedPolicy

    user = parse_user_settings({"mcpServers": {"s": {"command": "x", "sampling": True}}}, file="/u").servers
    (spec,) = govern(user, ManagedPolicy(file="/etc/levelcode/managed-settings.json", sampling=False))
    assert isinstance(spec, StdioServerSpec)
    asked: list[str] = []

    async def approve(server: str, _params: Mapping[str, object]) -> Mapping[str, object]:
        asked.append(server)
        return {"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "m"}

    features = features_for(spec, workspace_roots(tmp_path), UserAnswers(sample=approve))
    assert "sampling" not in features.capabilities
    peer, seen = asking_peer("sampling/createMessage", {"messages": [], "maxTokens": 5})
    session = McpSession(MemoryTransport(peer), features=features)  # type: ignore[arg-type]
    await session.open()
    info = ServerInfo("modern", "2026-07-28", offers=("tools",))
    outcome = await McpConnection(spec, session, info, ConnectOptions(workspace=tmp_path)).call_tool("t", {})
    assert outcome.is_error
    assert asked == []
    assert len(seen) == 1
    assert (
        "sampling is turned off by your organisation's policy (/etc/levelcode/managed-settings.json)"
        in outcome.text
    )
