"""Deferred tool loading end to end, through `levelcode run`: MCP tools over the budget leave the
request, the model gets `tool_search`, searches, and calls what it found under its usual name — and
that call meets the same gate as any MCP call. Against the fake providers (the Anthropic one lets a
scripted reply call only what a `tool_reference` loaded) and the fault server with many tools.

Load-bearing direction: a found tool that is not allow-listed must not run headless (its marker
file must not appear); the positive control runs it once the user's allow-list names it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from levelcode.core.token_estimate import estimate_tokens
from tests.fakes.anthropic_prompt import loaded_tools
from tests.fakes.fake_anthropic import fake_anthropic, tool_results
from tests.fakes.fake_openai import fake_openai, offered_tool_names
from tests.fakes.scripted_server import RecordedRequest, Reply, ScriptedServer, ToolCall
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.servers import FAULT_SERVER

FOUND = "fault__touch_marker"


def fault_server(pid_file: Path) -> dict[str, Any]:
    """The fault server with 80 extra tools: ~3,000 tokens of definitions."""
    return {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--tools", "80"],
        "env": {"FAULT_PID_FILE": str(pid_file)},
    }


def run(api: str, server: ScriptedServer, home: Path, workspace: Path, model: str) -> Any:
    command = [str(LEVELCODE), "run", "-C", str(workspace), *provider_flags(api, server.base_url, model)]
    command += ["--json", "touch the marker"]
    environment = provider_env(home, api)
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120, check=False)


def events(done: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def search_then_call(marker: Path, check: Any) -> list[Any]:
    def call_what_was_found(request: RecordedRequest) -> Reply:
        check(request)
        return Reply(tool_calls=(ToolCall(FOUND, {"path": str(marker)}, id="call_found"),))

    return [
        Reply(tool_calls=(ToolCall("tool_search", {"query": "touch marker"}, id="call_search"),)),
        call_what_was_found,
        Reply(text="done"),
    ]


def anthropic_mcp_tokens(request: RecordedRequest) -> int:
    """What the MCP side costs in the prompt: tools not deferred, beyond the built-in ones."""
    offered = [t for t in request.body["tools"] if not t.get("defer_loading") and "__" in t["name"]]
    search = [t for t in request.body["tools"] if t["name"] == "tool_search"]
    return sum(estimate_tokens(json.dumps(t)) for t in offered + search)


def test_anthropic_the_model_searches_then_calls_what_it_found_and_the_gate_holds(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    settings: dict[str, Any] = {
        "mcpServers": {"fault": fault_server(tmp_path / "pids")},
        "contextWindow": 20_000,  # 10 %: 2,000 tokens; the fault server's tools need ~3,000
    }
    write_settings(isolated_home, settings)
    seen: list[list[str]] = []

    def loaded(request: RecordedRequest) -> None:
        seen.append(loaded_tools(request.body))

    with fake_anthropic(search_then_call(marker, loaded)) as server:
        refused = run("anthropic", server, isolated_home, tmp_path, "claude-sonnet-5-5")
        first, second, third = server.requests
    assert refused.returncode == 0, refused.stderr
    tools = {t["name"]: t for t in first.body["tools"]}
    assert "tool_search" in tools
    assert "read_file" in tools
    assert "defer_loading" not in tools["tool_search"]
    assert all(t.get("defer_loading") is True for name, t in tools.items() if name.startswith("fault__"))
    assert anthropic_mcp_tokens(first) < 2_000
    assert "- fault: 96 tools" in tools["tool_search"]["description"]
    assert seen == [[FOUND]]  # the search result loaded the tool by reference, before the call
    assert [t["name"] for t in second.body["tools"]] == [t["name"] for t in first.body["tools"]]
    result = tool_results(third)[0]["content"]
    assert "not run" in result
    assert FOUND in result
    assert not marker.exists()
    kinds = [(e["type"], e.get("name")) for e in events(refused) if e["type"] in ("tool_call", "tool_result")]
    assert kinds == [
        ("tool_call", "tool_search"),
        ("tool_result", "tool_search"),
        ("tool_call", FOUND),
        ("tool_result", FOUND),
    ]
    chip = [e["text"] for e in events(refused) if e["type"] == "notice" and e["text"].startswith("mcp · ")]
    assert chip == ["mcp · fault (96) · 0/96 allow-listed · 96/96 behind tool_search"]

    write_settings(isolated_home, {**settings, "mcpToolPolicy": {FOUND: "allow"}})
    with fake_anthropic(search_then_call(marker, loaded)) as server:
        allowed = run("anthropic", server, isolated_home, tmp_path, "claude-sonnet-5-5")
    assert allowed.returncode == 0, allowed.stderr
    assert marker.read_text() == "touch_marker ran\n"


def test_openai_found_tools_join_the_following_requests_after_the_others(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    settings = {
        "mcpServers": {"fault": fault_server(tmp_path / "pids")},
        "toolSearch": "always",
        "mcpToolPolicy": {FOUND: "allow"},
    }
    write_settings(isolated_home, settings)
    with fake_openai(search_then_call(marker, lambda _request: None)) as server:
        done = run("openai", server, isolated_home, tmp_path, "gpt-5.5")
        first, second, third = (offered_tool_names(r) for r in server.requests)
    assert done.returncode == 0, done.stderr
    assert "tool_search" in first
    assert not [name for name in first if name.startswith("fault__")]
    assert second == [*first, FOUND]  # appended: the request's prefix is unchanged
    assert third == second
    assert marker.read_text() == "touch_marker ran\n"
