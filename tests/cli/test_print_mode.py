"""`levelcode -p "PROMPT"` end to end: a real `levelcode` process against the fake provider
servers. It is `levelcode run` under Claude Code's name — the same gates (nothing unsafe is allowed
because it is headless), stdin, exit codes — with `--output-format`: `text` prints the answer,
`json` one result object at the end (Claude Code's field names), `stream-json` LevelCode's events
one per line as they come, then that same object.

Load-bearing: -p never allows what `run` refuses; the result object is the last line of
stream-json and the only line of json, with is_error true and exit status 1 when the task failed;
a run that could not start (exit 2) writes nothing to stdout.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import LEVELCODE, provider_env, provider_flags, run_cli

RESULT_KEYS = {
    "type",
    "subtype",
    "is_error",
    "result",
    "session_id",
    "num_turns",
    "duration_ms",
    "stop_reason",
    "total_cost_usd",
    "usage",
    "model",
}
READ_THEN_ANSWER = [
    Reply(text="Reading.", tool_calls=(ToolCall("read_file", {"path": "a.txt"}),)),
    Reply(text="It says hi."),
]


def _levelcode(
    api: Api, server: ScriptedServer, home: Path, workspace: Path, *args: str, given: str | None = None
) -> subprocess.CompletedProcess[str]:
    command = [str(LEVELCODE), "-C", str(workspace), *provider_flags(api.name, server.base_url, api.model)]
    return subprocess.run(
        [*command, *args],
        input=given,
        capture_output=True,
        text=True,
        env=provider_env(home, api.name),
        timeout=120,
        check=False,
    )


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_print_prints_the_answer(api: Api, isolated_home: Path, tmp_path: Path) -> None:
    with api.fake([Reply(text="On it.")]) as server:
        done = _levelcode(api, server, isolated_home, tmp_path, "-p", "say it")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "On it.\n"


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_json_is_one_result_object_whose_session_goes_on(
    api: Api, isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    with api.fake([*READ_THEN_ANSWER, Reply(text="Still hi.")]) as server:
        done = _levelcode(api, server, isolated_home, tmp_path, "-p", "--output-format", "json", "what?")
        (result,) = _lines(done.stdout)
        follow = _levelcode(api, server, isolated_home, tmp_path, "-p", "-r", result["session_id"], "again?")
        last = json.dumps(server.requests[-1].body)
    assert done.returncode == 0, done.stderr
    assert set(result) == RESULT_KEYS
    assert result["type"] == "result"
    assert (result["subtype"], result["is_error"]) == ("success", False)
    assert result["result"] == "It says hi."
    assert result["num_turns"] == 2  # the model's requests in this run
    assert result["stop_reason"] == "end_turn"
    assert result["model"] == api.model
    assert isinstance(result["total_cost_usd"], float)
    assert result["total_cost_usd"] > 0
    assert result["usage"]["output_tokens"] > 0
    assert isinstance(result["duration_ms"], int)
    assert result["duration_ms"] >= 0
    assert follow.returncode == 0, follow.stderr
    assert follow.stdout == "Still hi.\n"
    assert "It says hi." in last  # the follow-up went on in the session the object named


def test_stream_json_is_the_event_stream_ending_with_the_result(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    with OPENAI.fake(READ_THEN_ANSWER + READ_THEN_ANSWER) as server:
        streamed = _levelcode(
            OPENAI, server, isolated_home, tmp_path, "-p", "--output-format", "stream-json", "x"
        )
        run_json = _levelcode(OPENAI, server, isolated_home, tmp_path, "run", "--json", "x")
    assert streamed.returncode == 0, streamed.stderr
    events = [e for e in _lines(streamed.stdout) if e["type"] != "notice"]  # e.g. no sandbox here
    assert [e["type"] for e in events] == ["tool_call", "tool_result", "final", "result"]
    assert events[0]["name"] == "read_file"
    assert events[2]["text"] == events[3]["result"] == "It says hi."
    assert set(events[3]) == RESULT_KEYS
    run_events = [e["type"] for e in _lines(run_json.stdout) if e["type"] != "notice"]
    assert run_events == [e["type"] for e in events]  # one stream


def test_a_failed_run_is_an_error_result_and_status_1(isolated_home: Path, tmp_path: Path) -> None:
    with OPENAI.fake([Reply(text="never")]) as server:
        args = ("--model", "no-such-model", "-p", "--output-format", "json", "hi")
        done = _levelcode(OPENAI, server, isolated_home, tmp_path, *args)
    assert done.returncode == 1
    (result,) = _lines(done.stdout)
    assert (result["type"], result["subtype"], result["is_error"]) == (
        "result",
        "error_during_execution",
        True,
    )
    assert "no-such-model" in result["errors"][0]
    assert "no-such-model" in done.stderr


def test_a_run_that_cannot_start_prints_no_json(isolated_home: Path, tmp_path: Path) -> None:
    args = ["-C", str(tmp_path), "--provider", "anthropic", "-p", "--output-format", "json", "hi"]
    done = run_cli(args, isolated_home)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "ANTHROPIC_API_KEY" in done.stderr


@pytest.mark.parametrize("args", [("-p",), ("-p", "-")], ids=["no-prompt", "dash"])
def test_the_prompt_is_read_from_stdin_as_with_run(
    args: tuple[str, ...], isolated_home: Path, tmp_path: Path
) -> None:
    with OPENAI.fake([Reply(text="Done.")]) as server:
        done = _levelcode(OPENAI, server, isolated_home, tmp_path, *args, given="fix the test\n")
        content = server.requests[0].body["messages"][-1]["content"]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    assert content == "fix the test"


EDIT_AND_RUN = [
    Reply(tool_calls=(ToolCall("edit_file", {"path": "app.py", "old_string": "1", "new_string": "2"}),)),
    Reply(tool_calls=(ToolCall("run_command", {"command": "rm -rf keep"}),)),
    Reply(text="Could not."),
]


@pytest.mark.parametrize("autopilot", [False, True], ids=["asking", "autopilot"])
def test_print_allows_nothing_run_refuses(autopilot: bool, isolated_home: Path, tmp_path: Path) -> None:
    """Without --autopilot the edit is refused (nobody to ask); with it the edit may run, but the
    flagged command never does — exactly as `levelcode run`."""
    flags = ["--autopilot"] if autopilot else []
    outcomes = {}
    for form in (["-p"], ["run"]):
        (tmp_path / "app.py").write_text("value = 1\n")
        (tmp_path / "keep").mkdir(exist_ok=True)
        with OPENAI.fake(EDIT_AND_RUN) as server:
            done = _levelcode(
                OPENAI, server, isolated_home, tmp_path, *form, *flags, "--output-format", "stream-json", "go"
            )
        assert done.returncode == 0, done.stderr
        results = [e for e in _lines(done.stdout) if e["type"] == "tool_result"]
        outcomes[form[0]] = ([r["is_error"] for r in results], (tmp_path / "app.py").read_text())
        assert (tmp_path / "keep").is_dir()
        assert results[1]["is_error"]
    assert outcomes["-p"] == outcomes["run"]
    assert outcomes["-p"][1] == ("value = 2\n" if autopilot else "value = 1\n")
