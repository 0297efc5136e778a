"""The caps on tool definitions, end to end through `levelcode run` and `levelcode mcp list`/`get`.
Load-bearing direction: a schema of 300,000 characters never rides a model request — its
descriptive text is trimmed, or (when what is left is still over the cap) the tool is left out,
and a note names the server and the tool. The second corpus: a description the size of real
servers' longest (sequential-thinking's 2,781 characters) arrives whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from levelcode.mcp.calls.definition_caps import DEFAULT_MAX_DEFINITION
from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli, write_settings
from tests.support.servers import FAULT_SERVER


def huge_settings(home: Path, workspace: Path) -> None:
    entry = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--huge-schema"],
        "env": {"FAULT_PID_FILE": str(workspace / "pids")},
    }
    write_settings(home, {"mcpServers": {"fault": entry}})


def offered(request: Any) -> dict[str, dict[str, Any]]:
    return {tool["function"]["name"]: tool["function"] for tool in request.body["tools"]}


def test_a_huge_schema_never_rides_the_model_request(isolated_home: Path, tmp_path: Path) -> None:
    huge_settings(isolated_home, tmp_path)
    with OPENAI.fake([Reply(text="ok")]) as server:
        argv = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", server.base_url, OPENAI.model),
        ]
        done = subprocess.run(
            [*argv, "--json", "hi"],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai"),
            timeout=120,
            check=False,
        )
        request = server.requests[0]
    assert done.returncode == 0, done.stderr
    assert len(json.dumps(request.body)) < 100_000
    tools = offered(request)
    trimmed = tools["fault__huge_description"]
    assert len(json.dumps(trimmed)) <= DEFAULT_MAX_DEFINITION + 200
    assert trimmed["parameters"]["required"] == ["q"]  # what the schema accepts is unchanged
    assert trimmed["parameters"]["properties"]["q"]["type"] == "string"
    assert "fault__huge_enum" not in tools
    assert len(tools["fault__long_description"]["description"]) == 3000  # arrives whole
    notices = [json.loads(line)["text"] for line in done.stdout.splitlines() if '"notice"' in line]
    note = next(text for text in notices if "huge_enum" in text)
    assert "MCP server 'fault'" in note
    assert "left out" in note


def test_where_a_cap_bit_is_shown_by_mcp_list_and_get(isolated_home: Path, tmp_path: Path) -> None:
    huge_settings(isolated_home, tmp_path)
    listed = json.loads(run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home).stdout)
    (fault,) = listed["servers"]
    assert fault["caps"] == {
        "cut_descriptions": [],
        "trimmed_schemas": ["huge_description"],
        "left_out": ["huge_enum"],
    }
    plain = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home).stdout
    assert "1 schema trimmed (huge_description)" in plain
    assert "1 left out over the definition cap (huge_enum)" in plain
    got = run_cli(["-C", str(tmp_path), "mcp", "get", "fault"], isolated_home)
    assert got.returncode == 0, got.stderr
    assert "1 left out over the definition cap (huge_enum)" in got.stdout
    assert "fault__huge_description  [ask · unannotated]" in got.stdout
    doc = json.loads(run_cli(["-C", str(tmp_path), "mcp", "get", "fault", "--json"], isolated_home).stdout)
    assert doc["state"] == "running"
    assert doc["caps"]["left_out"] == ["huge_enum"]


def test_mcp_get_never_starts_a_server_that_needs_approval(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    code = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('ran')"
    entry = {"command": sys.executable, "args": ["-c", code, str(marker)]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": entry}}))
    never = run_cli(["-C", str(tmp_path), "mcp", "get", "repo"], isolated_home)
    assert never.returncode == 0, never.stderr
    assert not marker.exists()
    assert "  live:    not started (needs approval)" in never.stdout
    doc = json.loads(run_cli(["-C", str(tmp_path), "mcp", "get", "repo", "--json"], isolated_home).stdout)
    assert (doc["state"], doc["tools"], doc["caps"]) == ("needs approval", [], None)
    assert not marker.exists()
    # The positive control: approved here, `mcp get` does start it (and it fails: not an MCP server).
    spec = load_mcp_config(tmp_path).server("repo")
    assert spec is not None
    TrustStore(isolated_home / "state" / "trust.json").approve(tmp_path, spec, launch_text(spec))
    approved = run_cli(["-C", str(tmp_path), "mcp", "get", "repo"], isolated_home)
    assert marker.exists()
    assert "  live:    failed: " in approved.stdout
