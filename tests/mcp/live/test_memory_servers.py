"""The hub's transport seam, and the in-memory servers tests hand it. Load-bearing direction: the
in-memory fault server answers exactly what the real one answers (each check runs against both,
the real one as a subprocess), so a test moved onto it still proves what it proved; and what only
a process does is refused in memory rather than faked. The second corpus: resources, prompts,
templates, pushed notifications, progress and requests to the client reach the hub as a real
server's would, through the same hub, connection and session."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from levelcode.core.progress import Progress
from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.transports import transport_plan
from tests.fakes.memory_server import NeedsAProcess
from tests.support.memory_servers import MemoryServers
from tests.support.servers import TASK_SERVER, USER, fault_spec

CALLS: list[tuple[str, dict[str, object]]] = [
    ("echo", {"message": "hi"}),
    ("count_chars", {"text": "abcd"}),
    ("is_error", {}),
    ("rpc_error", {}),
    ("image", {}),
    ("huge_text", {}),
    ("bad name/with:chars", {}),
    ("ask_client", {"method": "roots/list"}),
    ("ask_client", {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}),
    ("garbage_reply", {}),
    ("crash", {}),  # last: the server is gone after it
]


@pytest.fixture(params=["memory", "process"])
async def either(
    request: pytest.FixtureRequest, memory_servers: MemoryServers, tmp_path: Path
) -> AsyncIterator[McpHub]:
    """A hub running the fault server (`--odd-names`) in memory, or as a real process."""
    options = ConnectOptions(workspace=tmp_path, startup_timeout=15, call_timeout=10)
    if request.param == "memory":
        hub = McpHub(options, transports=memory_servers.plan)
        spec = memory_servers.add("--odd-names")
    else:
        hub = McpHub(options)
        spec = fault_spec("--odd-names", pid_file=tmp_path / "pids")
    await hub.start([spec])
    yield hub
    await hub.reap_all()


async def test_both_forms_list_the_same_tools_and_answer_every_call_alike(either: McpHub) -> None:
    connection = either.connection("fault")
    assert connection is not None
    assert connection.info.name == "fault-server"
    assert [tool["name"] for tool in connection.tools][-3:] == [
        "count_chars",
        "read_file",
        "bad name/with:chars",
    ]
    assert len(connection.tools) == 18
    texts = [(await either.call("fault", tool, arguments)).text for tool, arguments in CALLS]
    assert texts[:5] == [
        "hi",
        "4 characters",
        "ERROR: the tool failed on purpose",
        "ERROR: fault/rpc_error: rpc failure on purpose",
        "[image 1: image/png, 29.3 KB, attached]",
    ]
    assert texts[5].endswith("line of text\n\n[result cut: showing 40,000 of 130,000 characters]")
    assert texts[6] == "bad name/with:chars called"
    assert texts[7] == '{"roots": []}'
    assert texts[8].startswith('ERROR: {"code": -32601, "message": "')
    assert texts[9].startswith("ERROR: fault/garbage_reply: malformed message from the server")
    assert texts[10] == (
        "ERROR: server 'fault' exited (exit code 3) during crash\n"
        "last stderr lines:\nfault-server: about to crash\nfatal: simulated crash"
    )


async def test_both_forms_say_their_tools_changed(either: McpHub) -> None:
    connection = either.connection("fault")
    assert connection is not None
    changed = asyncio.Event()
    connection.on_tools_changed = lambda _c: changed.set()
    outcome = await either.call("fault", "change_tools", {"times": 2})
    assert outcome.text == "changed; tools/list answered 1 times"
    async with asyncio.timeout(10):
        await changed.wait()
    assert connection.tools[-1]["name"] == "added_later"


@pytest.mark.parametrize("form", ["memory", "process"])
async def test_both_forms_of_the_task_server_count_alike_and_hint_their_lists(
    memory_servers: MemoryServers, tmp_path: Path, form: str
) -> None:
    flags = ("--ttl-ms", "600000")
    options = ConnectOptions(workspace=tmp_path, startup_timeout=15)
    if form == "memory":
        connection = await connect(memory_servers.add_tasks(*flags), options, transports=memory_servers.plan)
    else:
        spec = StdioServerSpec("tasks", sys.executable, USER, args=(str(TASK_SERVER), "--stdio", *flags))
        connection = await connect(spec, options)
    try:
        assert connection.info.era == "modern"
        assert connection.info.task_calls
        assert not connection.tools_stale
        counted = json.loads((await connection.call_tool("request_counts", {})).text)
        failed = await connection.call_tool("task_fail", {})
    finally:
        await connection.close()
    assert [t["name"] for t in connection.tools][:2] == ["report", "task_report"]
    assert counted == {"initialize": 1, "server/discover": 1, "tools/call": 1, "tools/list": 1}
    assert failed.text.startswith("ERROR: tasks/task_fail: the backend refused the job")


@pytest.mark.parametrize("era", ["legacy", "modern", "dual", "silent-legacy"])
async def test_the_era_is_found_on_one_connection_as_on_one_process(
    memory_servers: MemoryServers, tmp_path: Path, era: str
) -> None:
    spec = memory_servers.add("--era", era)
    connection = await connect(spec, ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    try:
        assert connection.info.era == ("modern" if era == "modern" else "legacy")
        assert (await connection.call_tool("echo", {"message": era})).text == era
    finally:
        await connection.close()
    assert len(memory_servers["fault"].transports) == 1


async def test_a_hub_keeps_its_seam_through_a_new_chat(memory_servers: MemoryServers, tmp_path: Path) -> None:
    assert McpHub(ConnectOptions(workspace=tmp_path)).transports is transport_plan  # what production uses
    hub = McpHub(ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    spec = memory_servers.add()
    await hub.start([spec])
    await hub.renew(ConnectOptions(workspace=tmp_path, call_timeout=5))
    await hub.start([spec])
    try:
        assert (await hub.call("fault", "echo", {"message": "again"})).text == "again"
    finally:
        await hub.reap_all()
    assert len(memory_servers["fault"].transports) == 2


async def test_resources_prompts_and_pushed_changes_reach_the_connection(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    spec = memory_servers.add()
    server = memory_servers["fault"]
    server.resources["note://a"] = "first"
    server.templates.append({"uriTemplate": "note://{name}", "name": "notes"})
    server.prompts["review"] = "Review this."
    hub = McpHub(ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    await hub.start([spec])
    connection = hub.connection("fault")
    assert connection is not None
    try:
        assert connection.info.offers == ("tools", "resources", "prompts")
        assert hub.resource_servers() == {"fault"}
        assert (await hub.resource_call("fault", "read_resource", {"uri": "note://a"})).text == "first"
        missing = await hub.resource_call("fault", "read_resource", {"uri": "note://gone"})
        assert missing.is_error
        assert "no resource note://gone" in missing.text
        prompts = await connection.listing("prompts/list", "prompts")
        assert [p["name"] for p in prompts] == ["review"]
        got = await connection.request("prompts/get", {"name": "review"})
        assert json.dumps(got).count("Review this.") == 1
        server.resources.clear()
        server.templates.clear()
        server.push("notifications/resources/list_changed")
        async with asyncio.timeout(5):
            while connection.has_resources:
                await asyncio.sleep(0)  # the re-list runs in the background: yield to it
        assert hub.resource_servers() == set()
    finally:
        await hub.reap_all()
    assert server.methods().count("resources/list") == 2


async def test_progress_and_sleep_run_on_the_loop(memory_servers: MemoryServers, tmp_path: Path) -> None:
    spec = memory_servers.add()
    connection = await connect(spec, ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    seen: list[Progress] = []
    try:
        done = await connection.call_tool("progress", {"steps": 3, "interval": 0.01}, on_progress=seen.append)
        slept = await connection.call_tool("sleep", {"seconds": 0.01})
    finally:
        await connection.close()
    assert done.text == "done after 3 steps"
    assert [(p.progress, p.total) for p in seen] == [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]
    assert slept.text == "slept"


@pytest.mark.parametrize("flags", [("--exit-at-start",), ("--grandchildren", "1"), ("--slow-start", "1")])
def test_start_up_faults_need_a_real_process(memory_servers: MemoryServers, flags: tuple[str, ...]) -> None:
    with pytest.raises(NeedsAProcess, match="fault_spec"):
        memory_servers.add(*flags)


@pytest.mark.parametrize("tool", ["whereami", "big", "crash_with_children"])
async def test_process_tools_need_a_real_process(
    memory_servers: MemoryServers, tmp_path: Path, tool: str
) -> None:
    spec = memory_servers.add()
    connection = await connect(spec, ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    try:
        with pytest.raises(NeedsAProcess, match="needs a real process"):
            await connection.call_tool(tool, {})
    finally:
        await connection.close()


async def test_a_server_nobody_added_fails_to_start_by_name(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    hub = McpHub(ConnectOptions(workspace=tmp_path), transports=memory_servers.plan)
    await hub.start([StdioServerSpec("ghost", "in-memory", memory_servers.add().provenance)])
    assert hub.statuses()["ghost"].phase == "failed"
    assert "no in-memory server named 'ghost'" in (hub.statuses()["ghost"].detail or "")
