"""Annotations read as the MCP spec defines them, end to end through `levelcode run` with a server
annotated like chrome-devtools-mcp (`readOnlyHint: false`, no `destructiveHint`, whose default is
true). Load-bearing direction: with `"chromedev__*": "allow"`, a destructive tool (evaluate_script,
fill, close_page) is refused headless and its marker file never appears. The second corpus: the
read-only tools and the unannotated one the same entry allows do run, and every view names each
tool unannotated, read-only or destructive."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.fake_openai import tool_messages
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli, write_settings
from tests.support.servers import FAULT_SERVER

DESTRUCTIVE = ("evaluate_script", "fill", "close_page")
READ_ONLY = ("list_pages", "get_css_styles")


def chromedev_settings(home: Path, workspace: Path) -> None:
    entry = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--chromedev"],
        "env": {"FAULT_PID_FILE": str(workspace / "pids")},
    }
    write_settings(home, {"mcpServers": {"chromedev": entry}, "mcpToolPolicy": {"chromedev__*": "allow"}})


def test_tools_destructive_by_the_specs_default_are_refused_headless(
    isolated_home: Path, tmp_path: Path
) -> None:
    chromedev_settings(isolated_home, tmp_path)
    markers = {tool: tmp_path / f"{tool}.marker" for tool in (*DESTRUCTIVE, "touch_marker")}
    calls = tuple(ToolCall(f"chromedev__{tool}", {"path": str(marker)}) for tool, marker in markers.items())
    calls += tuple(ToolCall(f"chromedev__{tool}") for tool in READ_ONLY)
    with OPENAI.fake([Reply(tool_calls=calls), Reply(text="ok")]) as server:
        argv = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", server.base_url, OPENAI.model),
        ]
        done = subprocess.run(
            [*argv, "--autopilot", "go"],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai"),
            timeout=120,
            check=False,
        )
        results: list[str] = [m["content"] for m in tool_messages(server.requests[1])]
    assert done.returncode == 0, done.stderr
    for tool, text in zip(DESTRUCTIVE, results, strict=False):
        assert not markers[tool].exists(), f"{tool} ran"
        assert text.startswith(f"ERROR: MCP tool 'chromedev__{tool}' was not run")
        assert "destructive" in text
        assert "mcpToolPolicy" not in text
    assert markers["touch_marker"].exists()  # unannotated: the allow-list decides
    assert results[3:] == ["touch_marker done", "list_pages ran", "get_css_styles ran"]


def test_views_name_each_tools_kind(isolated_home: Path, tmp_path: Path) -> None:
    chromedev_settings(isolated_home, tmp_path)
    doc: dict[str, Any] = json.loads(
        run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home).stdout
    )
    tools = {t["tool"]: t for t in doc["servers"][0]["tools"]}
    assert {tools[name]["kind"] for name in DESTRUCTIVE} == {"destructive"}
    assert {tools[name]["kind"] for name in READ_ONLY} == {"read-only"}
    assert tools["touch_marker"]["kind"] == "unannotated"
    assert tools["delete_everything"]["kind"] == "destructive"
    assert [tools[name]["decision"] for name in (*DESTRUCTIVE, *READ_ONLY, "touch_marker")] == [
        "ask",
        "ask",
        "ask",
        "allow",
        "allow",
        "allow",
    ]
    plain = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home).stdout
    assert "    chromedev__fill  [ask · destructive]" in plain
    assert "    chromedev__list_pages  [allow · read-only]" in plain
    assert "    chromedev__touch_marker  [allow · unannotated]" in plain
