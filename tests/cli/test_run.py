"""`levelcode run` end to end: a real `levelcode` process, the real provider code, a fake provider
server on 127.0.0.1 that enforces the API's rules, and files checked on disk afterwards."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags


def _run(
    api: Api, server: ScriptedServer, home: Path, workspace: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    command = [
        str(LEVELCODE),
        "run",
        "-C",
        str(workspace),
        *provider_flags(api.name, server.base_url, api.model),
        *args,
    ]
    env = provider_env(home, api.name)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


TASK = [
    Reply(text="Let me look.", tool_calls=(ToolCall("read_file", {"path": "app.py"}),)),
    Reply(
        tool_calls=(
            ToolCall("edit_file", {"path": "app.py", "old_string": "return 1", "new_string": "return 2"}),
        )
    ),
    Reply(tool_calls=(ToolCall("run_command", {"command": "python3 app.py > result.txt"}),)),
    Reply(text="Changed the return value to 2 and ran the script."),
]


@pytest.mark.sandbox  # autopilot runs the command unasked only where it can be confined
@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_a_multi_step_task_edits_files_and_runs_a_command(
    api: Api, isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text("def value():\n    return 1\n\nprint(value())\n")
    with api.fake(TASK) as server:
        done = _run(api, server, isolated_home, tmp_path, "--autopilot", "make value() return 2")
        offered = api.offered_tools(server.requests[0])
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "app.py").read_text() == "def value():\n    return 2\n\nprint(value())\n"
    assert (tmp_path / "result.txt").read_text() == "2\n"
    assert "Changed the return value to 2" in done.stdout
    assert "● edit_file" in done.stderr
    assert {"read_file", "edit_file", "run_command", "write_file", "search_files"} <= set(offered)


@pytest.mark.sandbox  # the run_command step runs unasked only in the sandbox
@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_json_output_is_one_event_per_line(api: Api, isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def value():\n    return 1\n\nprint(value())\n")
    with api.fake(TASK) as server:
        done = _run(api, server, isolated_home, tmp_path, "--autopilot", "--json", "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    calls = [e["name"] for e in events if e["type"] == "tool_call"]
    assert calls == ["read_file", "edit_file", "run_command"]
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["is_error"] for r in results] == [False, False, False]
    assert "return 1" in results[0]["text"]
    final, result = events[-2:]
    assert result["type"] == "result"  # the result object closes the stream: test_print_mode.py
    usage = final.pop("usage")
    for priced in ("model", "cost_usd", "session"):  # tests/cli/test_run_cost.py checks them
        final.pop(priced)
    assert final == {
        "type": "final",
        "text": "Changed the return value to 2 and ran the script.",
        "stop_reason": "end_turn",
    }
    assert set(usage) == {
        "input_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "output_tokens",
    }
    assert usage["output_tokens"] > 0
    if api is ANTHROPIC:  # four requests sharing one prefix: the last three read it from the cache
        assert usage["cache_creation_input_tokens"] > 0
        assert usage["cache_read_input_tokens"] > usage["cache_creation_input_tokens"]


def test_headless_without_autopilot_changes_nothing(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def value():\n    return 1\n\nprint(value())\n")
    with OPENAI.fake([*TASK[1:3], Reply(text="Could not.")]) as server:
        done = _run(OPENAI, server, isolated_home, tmp_path, "--json", "go")
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines() if '"tool_result"' in line]
    assert all(r["is_error"] and r["text"].startswith("ERROR: not run: nobody can approve") for r in results)
    assert "return 1" in (tmp_path / "app.py").read_text()
    assert not (tmp_path / "result.txt").exists()


def test_flagged_command_never_runs_headless_even_with_autopilot(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "keep").mkdir()
    steps = [Reply(tool_calls=(ToolCall("run_command", {"command": "rm -rf keep"}),)), Reply(text="ok")]
    with OPENAI.fake(steps) as server:
        done = _run(OPENAI, server, isolated_home, tmp_path, "--autopilot", "--json", "clean up")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "keep").is_dir()
    assert "flagged as dangerous" in done.stdout


def test_missing_key_says_which_variable(isolated_home: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(LEVELCODE), "run", "-C", str(tmp_path), "--provider", "anthropic", "hi"],
        capture_output=True,
        text=True,
        env=cli_env(isolated_home),
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr


def test_an_api_error_is_shown_and_the_run_fails(isolated_home: Path, tmp_path: Path) -> None:
    with OPENAI.fake([Reply(text="never")]) as server:
        env = provider_env(isolated_home, "openai")
        command = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", server.base_url, "no-such-model"),
            "hi",
        ]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 1
    assert "no-such-model" in done.stderr


def test_agents_md_joins_the_system_prompt_marked_as_repo_authored(
    isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("Always use tabs.\n" + "x" * 50_000)
    with OPENAI.fake([Reply(text="ok")]) as server:
        done = _run(OPENAI, server, isolated_home, tmp_path, "hi")
        system = server.requests[0].body["messages"][0]["content"]
    assert done.returncode == 0, done.stderr
    assert "Always use tabs." in system
    assert "written by the repository's authors" in system
    assert "AGENTS.md cut at 12,000 characters" in system
    assert len(system) < 15_000


def test_add_dir_lets_the_tools_reach_another_directory(isolated_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "data.txt").write_text("outside data\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    steps = [
        Reply(tool_calls=(ToolCall("read_file", {"path": str(outside / "data.txt")}),)),
        Reply(text="ok"),
    ]
    with OPENAI.fake(steps + steps) as server:
        refused = _run(OPENAI, server, isolated_home, workspace, "--json", "read it")
        allowed = _run(
            OPENAI, server, isolated_home, workspace, "--json", "--add-dir", str(outside), "read it"
        )
    first = next(json.loads(line) for line in refused.stdout.splitlines() if '"tool_result"' in line)
    second = next(json.loads(line) for line in allowed.stdout.splitlines() if '"tool_result"' in line)
    assert first["is_error"]
    assert "--add-dir" in first["text"]
    assert not second["is_error"]
    assert "outside data" in second["text"]


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_a_successful_run_writes_nothing_to_stderr(api: Api, isolated_home: Path, tmp_path: Path) -> None:
    """The answer goes to stdout; a script that treats any stderr output as trouble sees none."""
    with api.fake([Reply(text="All good.")]) as server:
        command = [str(LEVELCODE), "run", "-C", str(tmp_path)]
        command += [*provider_flags(api.name, server.base_url, api.model), "hi"]
        done = subprocess.run(
            command, capture_output=True, env=provider_env(isolated_home, api.name), timeout=120, check=False
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert b"All good." in done.stdout
