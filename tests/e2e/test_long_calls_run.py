"""Long calls through the whole program (`levelcode run --json`, the fake provider API): a call the
server runs as a task reaches the model as one tool result, its status arriving as `progress`
events with a `task` field; a huge result reaches the model cut, with the file it was saved to
named in the result, in a `saved` field, and readable by the model with read_file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import ANTHROPIC, Api
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.http_servers import ServerProcess, free_port, running
from tests.support.servers import FAULT_SERVER, TASK_SERVER


def run_json(
    api: Api, server: ScriptedServer, home: Path, workspace: Path, prompt: str
) -> list[dict[str, Any]]:
    command = [str(LEVELCODE), "run", "--json", "-C", str(workspace)]
    command += [*provider_flags(api.name, server.base_url, api.model), prompt]
    done = subprocess.run(
        command, capture_output=True, text=True, env=provider_env(home, api.name), timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_task_reaches_the_model_as_one_result_with_its_status_as_progress(
    isolated_home: Path, tmp_path: Path
) -> None:
    port = free_port()
    task_server = ServerProcess([sys.executable, str(TASK_SERVER), str(port)], port, "/mcp")
    call = ToolCall("tasks__task_report", {"seconds": 1.0, "steps": 4})
    with running(task_server), ANTHROPIC.fake([Reply(tool_calls=(call,)), Reply(text="done")]) as model:
        settings = {"mcpServers": {"tasks": {"url": task_server.url}}, "mcpToolPolicy": {"tasks__*": "allow"}}
        write_settings(isolated_home, settings)
        events = run_json(ANTHROPIC, model, isolated_home, tmp_path, "report")
        second = json.dumps(model.requests[-1].body)
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert result["text"] == "task report done: 4 steps in 1 s"
    assert "task report done: 4 steps in 1 s" in second
    statuses = [e["task"]["status"] for e in events if e["type"] == "progress"]
    assert statuses[0] == "working"
    assert statuses[-1] == "completed"
    assert any(e.get("message") == "step 2 of 4" for e in events if e["type"] == "progress")


def test_task_progress_events_carry_the_servers_own_figures(isolated_home: Path, tmp_path: Path) -> None:
    """Over stdio the task server reports `progress`/`total` as its steps end: the `--json`
    progress events carry them, and a status change carries the last ones reported (null before
    any), never a made-up `progress: 0`."""
    call = ToolCall("tasks__task_report", {"seconds": 2.0, "steps": 4})
    tasks = {"command": sys.executable, "args": [str(TASK_SERVER), "--stdio"]}
    with ANTHROPIC.fake([Reply(tool_calls=(call,)), Reply(text="done")]) as model:
        write_settings(
            isolated_home, {"mcpServers": {"tasks": tasks}, "mcpToolPolicy": {"tasks__*": "allow"}}
        )
        events = run_json(ANTHROPIC, model, isolated_home, tmp_path, "report")
    progress = [e for e in events if e["type"] == "progress"]
    reports = [(e["progress"], e["total"]) for e in progress if "task" not in e]
    assert reports
    assert all(total == 4 and 1 <= done <= 4 for done, total in reports)
    statuses = [e for e in progress if "task" in e]
    assert (statuses[0]["progress"], statuses[0]["total"]) == (None, None)  # nothing reported yet
    assert statuses[-1]["task"]["status"] == "completed"
    assert statuses[-1]["total"] == 4
    assert statuses[-1]["progress"] >= 3
    assert not any(e["progress"] == 0 for e in progress)


def test_a_huge_result_is_cut_saved_and_read_back_by_the_model(isolated_home: Path, tmp_path: Path) -> None:
    whole = "".join(f"row {i:06d} " + "x" * 40 + "\n" for i in range(2_000))  # about 100 KB
    steps = [
        Reply(tool_calls=(ToolCall("fault__echo", {"message": whole}),)),
        lambda request: Reply(
            tool_calls=(ToolCall("read_file", {"path": saved_path(request), "start_line": 1999}),)
        ),
        Reply(text="done"),
    ]
    fault = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER)],
        "env": {"FAULT_PID_FILE": str(tmp_path / "p")},
    }
    with ANTHROPIC.fake(steps) as model:
        write_settings(
            isolated_home, {"mcpServers": {"fault": fault}, "mcpToolPolicy": {"fault__echo": "allow"}}
        )
        events = run_json(ANTHROPIC, model, isolated_home, tmp_path, "dump")
    cut, paged = [e for e in events if e["type"] == "tool_result"]
    assert cut["saved"]["bytes"] == len(whole)
    assert f"is saved in {cut['saved']['path']}: read it with read_file" in cut["text"]
    assert not paged["is_error"], paged["text"]
    assert paged["text"] == "  1999\trow 001998 " + "x" * 40 + "\n  2000\trow 001999 " + "x" * 40


def saved_path(request: Any) -> str:
    found = re.search(r"is saved in (\S+): read it with read_file", json.dumps(request.body))
    assert found is not None
    return found.group(1)
