"""The server list views: plain text when piped, rich in a terminal, JSON for scripts — the same
facts from the same summary; stale approvals are named and say how to forget them; every local
server says whether it runs in the sandbox, and how."""

from __future__ import annotations

import dataclasses
import json

from rich.console import Console

from levelcode.mcp.launch.server_box import ServerBox
from levelcode.mcp.launch.status import ServerStatus
from levelcode.mcp.live.overview import ListView, ServerFacts, ServerSummary, ToolLine
from levelcode.ui.mcp_views import render_list, summaries_json
from levelcode.ui.mcp_views_terminal import print_list

RUNNING = ServerSummary(
    "fs",
    ServerStatus("running"),
    "user",
    "/u/settings.json",
    "npx -y fs /tmp",
    None,
    (ToolLine("fs__read", "read", "allow", "r"), ToolLine("fs__write", "write", "ask", "r")),
    schema_tokens=321,
)
CHANGED = ServerSummary(
    "repo",
    ServerStatus("waiting_approval"),
    "workspace",
    "/r/.mcp.json",
    "node x.js",
    "changed",
    change="command changed",
)
NEVER = ServerSummary(
    "new",
    ServerStatus("waiting_approval"),
    "workspace",
    "/r/.mcp.json",
    "python s.py\nfake line",
    "never_approved",
)
VIEW = ListView((RUNNING, CHANGED, NEVER), stale=(("gone", "npx old-server"),))


def test_plain_text_names_every_state_and_the_next_step() -> None:
    text = render_list(VIEW)
    assert "fs · running · user · /u/settings.json" in text
    assert "  2 tools · ~321 tokens per turn · 1 allow-listed:" in text
    assert "    fs__read  [allow · unannotated]" in text
    assert "repo · command changed — needs approval · workspace · /r/.mcp.json" in text
    assert "new · needs approval · workspace" in text
    assert text.count("approve with: levelcode mcp trust") == 2
    assert "python s.py\\nfake line" in text  # control characters escaped, never a fake line
    assert "levelcode mcp revoke NAME" in text
    assert "  gone: npx old-server" in text


def test_piped_output_is_plain_and_a_terminal_gets_the_rich_view() -> None:
    piped = Console(record=True, force_terminal=False, width=100)
    print_list(piped, VIEW)
    assert piped.export_text().strip() == render_list(VIEW).strip()
    terminal = Console(record=True, force_terminal=True, width=100)
    print_list(terminal, VIEW)
    shown = terminal.export_text()
    assert "● fs  running" in shown
    assert "✓ fs__read" in shown
    assert "? fs__write" in shown
    assert "command changed — needs approval" in shown


def test_one_line_per_server_plain_and_rich_the_same_words() -> None:
    """`mcp list` without -v: NAME: COMMAND - state · tools · scope — next step; no tool names."""
    assert render_list(VIEW, verbose=False).splitlines()[:3] == [
        "fs: npx -y fs /tmp - ● running · 2 tools · user",
        "repo: node x.js - ◌ command changed — needs approval · project — approve with: "
        "levelcode mcp trust repo",
        "new: python s.py\\nfake line - ◌ needs approval · project — approve with: levelcode mcp trust new",
    ]
    terminal = Console(record=True, force_terminal=True, width=200)
    print_list(terminal, VIEW, verbose=False)
    shown = terminal.export_text()
    assert shown.splitlines()[:3] == render_list(VIEW, verbose=False).splitlines()[:3]
    assert "fs__read" not in shown
    assert "levelcode mcp revoke NAME" in shown  # the footer is kept


def test_json_view() -> None:
    doc = summaries_json(VIEW)
    assert [s["state"] for s in doc["servers"]] == [
        "running",
        "command changed — needs approval",
        "needs approval",
    ]
    assert doc["servers"][1]["trust"] == "changed"
    assert doc["stale_approvals"] == [{"name": "gone", "launch": "npx old-server"}]
    json.dumps(doc)


def test_nothing_configured_says_how_to_add() -> None:
    text = render_list(ListView(()))
    assert "No MCP servers are configured." in text
    assert "levelcode mcp add" in text
    assert "levelcode mcp import" in text


def test_where_a_cap_bit_is_named_in_every_view() -> None:
    capped = ServerSummary(
        "big",
        ServerStatus("running"),
        "user",
        "/u/settings.json",
        "big-server",
        None,
        (ToolLine("big__a", "a", "ask", "r", "destructive"),),
        cut_descriptions=("a",),
        trimmed_schemas=("a", "b\x1b[2J"),
        left_out=("c",),
    )
    view = ListView((capped,))
    text = render_list(view)
    assert (
        "1 tool · ~0 tokens per turn · 0 allow-listed · 1 description cut (a) · "
        "2 schemas trimmed (a, b\\x1b[2J) · 1 left out over the definition cap (c):"
    ) in text
    assert "    big__a  [ask · destructive]" in text
    terminal = Console(record=True, force_terminal=True, width=200)
    print_list(terminal, view)
    shown = terminal.export_text()
    assert "1 left out over the definition cap (c)" in shown
    assert "big__a (destructive)" in shown
    assert summaries_json(view)["servers"][0]["caps"] == {  # type: ignore[index]
        "cut_descriptions": ["a"],
        "trimmed_schemas": ["a", "b\x1b[2J"],
        "left_out": ["c"],
    }


def test_every_view_says_whether_and_how_a_server_is_confined() -> None:
    boxed = dataclasses.replace(RUNNING, sandbox=ServerBox(("~/notes",), False, True, "entry"))
    repo = dataclasses.replace(NEVER, launch="node x.js", sandbox=ServerBox(workspace=True, by="approval"))
    repo = dataclasses.replace(repo, trust="approved", status=ServerStatus("running"))
    remote = dataclasses.replace(RUNNING, name="far", remote=True)
    view = ListView((RUNNING, boxed, repo, NEVER, remote))
    text = render_list(view)
    assert '  sandbox: unconfined (your own server; add "sandbox" to its entry to confine it)' in text
    assert "  sandbox: sandboxed (its entry asks for it): writes its own folder, ~/notes · network on" in text
    assert (
        "  sandbox: sandboxed (as you approved it): writes its own folder, the workspace · network off"
        in text
    )
    assert "  sandbox: you choose when you approve it: sandboxed (offered first) or unconfined" in text
    assert text.count("sandbox:") == 4  # none for the remote server
    terminal = Console(record=True, force_terminal=True, width=200)
    print_list(terminal, view)
    assert "sandboxed (as you approved it): writes its own folder, the workspace" in terminal.export_text()
    shapes = [server["sandbox"] for server in summaries_json(view)["servers"]]  # type: ignore[index]
    assert [shape and shape["confined"] for shape in shapes] == [False, True, True, None, None]
    assert shapes[1] | {"text": ""} == {
        "confined": True,
        "text": "",
        "write": ["~/notes"],
        "workspace": False,
        "network": True,
        "by": "entry",
        "hosts": [],
        "registry": None,
    }


def test_a_filtered_network_is_named_host_by_host() -> None:
    """A sandboxed server reaches its launcher's registry and the hosts your entry lists: the
    views name them, rather than "network off"."""
    box = ServerBox(hosts=("api.example.com", "*.cdn.example"), registry="npm")
    boxed = dataclasses.replace(RUNNING, sandbox=box)
    text = render_list(ListView((boxed,)))
    assert (
        "  sandbox: sandboxed (its entry asks for it): writes its own folder · network only to the npm "
        "registry, api.example.com, *.cdn.example"
    ) in text
    shape = summaries_json(ListView((boxed,)))["servers"][0]["sandbox"]  # type: ignore[index]
    assert shape["hosts"] == ["api.example.com", "*.cdn.example"]
    assert shape["registry"] == "npm"
    alone = dataclasses.replace(RUNNING, sandbox=ServerBox(registry="python"))
    assert "network only to the Python package index" in render_list(ListView((alone,)))


def test_what_a_server_said_of_itself_and_its_errors_are_shown() -> None:
    facts = ServerFacts(
        "2025-11-25", "evil\x1b[2J", "1.0", ("tools", "logging"), ("error: disk \x1b]52;c;x\x07 full",)
    )
    view = ListView([dataclasses.replace(RUNNING, facts=facts)])
    text = render_list(view)
    assert "MCP 2025-11-25 · evil\\x1b[2J 1.0 · offers tools, logging" in text
    assert "server said error: disk \\x1b]52;c;x\\x07 full" in text
    assert "\x1b" not in text
    record = summaries_json(view)["servers"][0]
    assert record["protocol"] == "2025-11-25"
    assert record["serverInfo"] == {"name": "evil\x1b[2J", "version": "1.0"}
    assert record["offers"] == ["tools", "logging"]


def test_one_tool_is_one_tool_and_a_renamed_ones_own_name_is_shown_escaped() -> None:
    renamed = ToolLine("fs__x_1a2b3c4d", "x \x1b[31m/y", "ask", "r")
    one = dataclasses.replace(RUNNING, tools=(renamed,))
    text = render_list(ListView((one,)))
    assert "  1 tool · " in text
    assert "    fs__x_1a2b3c4d  [ask · unannotated]  server's name: 'x \\x1b[31m/y'" in text
    assert "\x1b" not in text
    terminal = Console(record=True, force_terminal=True, width=200)
    print_list(terminal, ListView((one,)))
    assert "server's name: 'x \\x1b[31m/y'" in terminal.export_text()
    assert "server's name" not in render_list(VIEW)  # fs__read is fs's `read`: nothing to add


def test_watched_resources_and_their_latest_changes_are_shown() -> None:
    facts = ServerFacts("2026-07-28", watched_resources=2, resource_updates=(("test://note\x1b[2J", 0.0),))
    view = ListView([dataclasses.replace(RUNNING, facts=facts)])
    text = render_list(view)
    assert "watching 2 resource(s) in use for changes" in text
    assert "test://note\\x1b[2J" in text
    assert "\x1b" not in text
    record = summaries_json(view)["servers"][0]
    assert record["resources"] == {"watched": 2, "updated": [{"uri": "test://note\x1b[2J", "at": 0.0}]}
