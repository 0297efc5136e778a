"""Saved sessions through real `levelcode run` processes against the fake provider servers: a
follow-up with `run --continue` sends the API the conversation exactly as it was (both API
shapes), with its model and its cost carried on; a `kill -9` mid-turn loses only that turn, which
reads back closed with the interrupted note; the file is private and holds no key; another
workspace's sessions are never offered; an unreadable file is one line and skipped."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from levelcode.agent.session_store import workspace_folder
from levelcode.agent.transcript import INTERRUPTED_NOTE
from tests.fakes.scripted_server import DEFAULT_API_KEY, RecordedRequest, Reply, ScriptedServer, ToolCall
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import LEVELCODE, provider_env

STEPS = [
    Reply(text="Reading.", tool_calls=(ToolCall("read_file", {"path": "a.txt"}),)),
    Reply(text="It says hi."),
]


def _run(
    api: Api,
    server: ScriptedServer,
    home: Path,
    workspace: Path,
    *flags: str,
    model: str | None = None,
) -> subprocess.CompletedProcess[str]:
    chosen = ["--model", model] if model else []
    command = [str(LEVELCODE), "run", "--json", "-C", str(workspace), "--provider", api.name]
    command += ["--base-url", server.base_url, *chosen, *flags]
    return subprocess.run(
        command, capture_output=True, text=True, env=provider_env(home, api.name), timeout=120, check=False
    )


def _events(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _conversation(api: Api, request: RecordedRequest) -> list[Any]:
    """The messages as sent, without the cache markers (they move to the newest turn each time)."""
    messages = request.body["messages"]
    if api is OPENAI:
        messages = [m for m in messages if m.get("role") not in ("system", "developer")]
    return [_unmarked(message) for message in messages]


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _unmarked(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    return value


def _micro(dollars: float) -> int:
    """A cost as shown (six decimal places), in whole micro-dollars: exact to compare."""
    return round(dollars * 1_000_000)


def _session_files(home: Path, workspace: Path) -> list[Path]:
    folder = workspace_folder(workspace, home / "state" / "sessions")
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_run_continue_sends_the_saved_conversation_exactly_and_carries_the_cost_on(
    api: Api, isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    with api.fake([*STEPS, Reply(text="Nothing else.")]) as server:
        first = _events(_run(api, server, isolated_home, tmp_path, "what does a.txt say?", model=api.model))
        before = server.requests[-1]
        second = _events(_run(api, server, isolated_home, tmp_path, "-c", "anything else?", model=api.model))
        after = server.requests[-1]
    sent_before, sent_after = _conversation(api, before), _conversation(api, after)
    assert sent_after[: len(sent_before)] == sent_before  # the old requests, repeated as they were
    answer, prompt = sent_after[len(sent_before) :]
    assert answer["role"] == "assistant"
    assert "It says hi." in json.dumps(answer)
    assert prompt["role"] == "user"
    assert "anything else?" in json.dumps(prompt)
    assert any(e["type"] == "notice" and e["text"].startswith("Resumed session ") for e in second)
    before, final = (next(e for e in events if e["type"] == "final") for events in (first, second))
    before = before["session"]
    assert final["session"]["usage"] == {key: before["usage"][key] + n for key, n in final["usage"].items()}
    # Each cost is shown rounded to the micro-dollar, the session's from its unrounded sum, so the
    # shown parts may add up to one micro-dollar off the shown whole (three roundings of at most
    # half of one each): 0.0049264 + 0.0003152 = 0.0052416 is shown 0.004926 + 0.000315 ≠ 0.005242.
    whole = _micro(final["session"]["cost_usd"])
    parts = _micro(before["cost_usd"]) + _micro(final["cost_usd"])
    assert abs(whole - parts) <= 1, (whole, parts)
    assert len(_session_files(isolated_home, tmp_path)) == 1  # the follow-up went on in the same file


def test_a_kill_9_mid_turn_loses_only_that_turn_which_reads_back_closed(
    isolated_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    steps = [
        Reply(text="Reading.", tool_calls=(ToolCall("read_file", {"path": "a.txt"}),)),
        Reply(text="thinking…", hang=True),
        Reply(text="Going on."),
    ]
    with ANTHROPIC.fake(steps) as server:
        command = [str(LEVELCODE), "run", "-C", str(tmp_path), "--provider", "anthropic"]
        command += ["--base-url", server.base_url, "read a.txt"]
        env = provider_env(isolated_home, "anthropic")
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert server.hanging.wait(60), process.poll()
        finally:
            process.kill()  # SIGKILL: nothing of LevelCode's own cleanup runs
            process.wait(timeout=30)
        done = _run(ANTHROPIC, server, isolated_home, tmp_path, "--continue", "go on")
        assert done.returncode == 0, done.stderr
        messages = server.requests[-1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"][0]["text"] == "read a.txt"
    assert messages[1]["content"][-1]["type"] == "tool_use"
    last = messages[2]["content"]
    assert [block["type"] for block in last] == ["tool_result", "text", "text"]
    assert "hi" in json.dumps(last[0]["content"])
    assert [last[1]["text"], last[2]["text"]] == [INTERRUPTED_NOTE, "go on"]


def test_the_session_file_is_private_and_holds_no_key_or_address(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    with ANTHROPIC.fake(STEPS) as server:
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "what does a.txt say?"))
        base_url = server.base_url
    [saved] = _session_files(isolated_home, tmp_path)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    for folder in (saved.parent, saved.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    text = saved.read_text()
    assert DEFAULT_API_KEY not in text
    assert base_url not in text
    assert "127.0.0.1" not in text
    header = json.loads(text.splitlines()[0])
    assert header["workspace"] == str(tmp_path.resolve())
    assert header["first_prompt"] == "what does a.txt say?"


def test_the_model_of_the_session_goes_on_unless_another_is_named(
    isolated_home: Path, tmp_path: Path
) -> None:
    steps = [Reply(text="One."), Reply(text="Two."), Reply(text="Three.")]
    with ANTHROPIC.fake(steps) as server:
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "hi", model="claude-haiku-5-5"))
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "-c", "again"))
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "-c", "once more", model="claude-opus-5-5"))
        models = [request.body["model"] for request in server.requests]
    assert models == ["claude-haiku-5-5", "claude-haiku-5-5", "claude-opus-5-5"]


def test_another_workspace_has_nothing_to_continue(isolated_home: Path, tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    with ANTHROPIC.fake([Reply(text="One.")]) as server:
        _events(_run(ANTHROPIC, server, isolated_home, here, "hi"))
        done = _run(ANTHROPIC, server, isolated_home, there, "-c", "again")
        assert len(server.requests) == 1
    assert done.returncode == 2
    assert done.stderr.strip() == f"levelcode: no saved session to continue in {there.resolve()}"


def test_an_unreadable_session_is_one_line_and_the_one_before_it_goes_on(
    isolated_home: Path, tmp_path: Path
) -> None:
    with ANTHROPIC.fake([Reply(text="One."), Reply(text="Two."), Reply(text="Three.")]) as server:
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "first session"))
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "second session"))
        older, newer = sorted(_session_files(isolated_home, tmp_path), key=lambda p: p.stat().st_mtime)
        lines = newer.read_text().splitlines()
        newer.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
        os.utime(older, (1, 1))  # the broken one stays the latest
        done = _run(ANTHROPIC, server, isolated_home, tmp_path, "-c", "again")
        sent = json.dumps(server.requests[-1].body["messages"])
    assert done.returncode == 0, done.stderr
    assert "first session" in sent
    assert "second session" not in sent
    [skipped] = [line for line in done.stderr.splitlines() if "skipped" in line]
    assert skipped.startswith(f"levelcode: skipped a saved session: {newer}: line 2: not valid JSON")


def test_resume_by_id_and_an_unknown_id(isolated_home: Path, tmp_path: Path) -> None:
    with ANTHROPIC.fake([Reply(text="One."), Reply(text="Two."), Reply(text="Three.")]) as server:
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "first session"))
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "second session"))
        first = min(_session_files(isolated_home, tmp_path), key=lambda p: p.stat().st_mtime)
        _events(_run(ANTHROPIC, server, isolated_home, tmp_path, "--resume", first.stem, "again"))
        sent = json.dumps(server.requests[-1].body["messages"])
        unknown = _run(ANTHROPIC, server, isolated_home, tmp_path, "--resume", "nope", "again")
    assert "first session" in sent
    assert "second session" not in sent
    assert unknown.returncode == 2
    assert "no saved session 'nope'" in unknown.stderr
