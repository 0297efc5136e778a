"""Session files on disk: saved as the loop reaches its checkpoints, read back the same; a torn
last line (a crash mid-write) dropped and cut off so the next line does not join it; a session
open in one LevelCode not opened by another; only this workspace's sessions offered; the newest
50 kept; `/new` beginning a file of its own whose figures start at zero."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from levelcode.agent.session_recorder import SessionRecorder
from levelcode.agent.session_store import SESSIONS_KEPT, SessionFolder, workspace_folder
from levelcode.agent.spend import SpendMeter
from levelcode.agent.transcript import Transcript
from levelcode.core.errors import SessionUnavailable, SessionUnreadable
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, Usage
from levelcode.core.outcome import ToolOutcome
from levelcode.policy.prices import Price


def _folder(tmp_path: Path, name: str = "work") -> SessionFolder:
    workspace = tmp_path / name
    workspace.mkdir(exist_ok=True)
    return SessionFolder(workspace)


def _recorder(folder: SessionFolder, problems: list[str] | None = None) -> SessionRecorder:
    return SessionRecorder(folder, "anthropic", (problems if problems is not None else []).append)


def _turn(transcript: Transcript, spend: SpendMeter, prompt: str, answer: str) -> None:
    transcript.add_prompt(prompt)
    spend.begin_turn()
    spend.record("claude-sonnet-5-5", Usage(10, 5))
    transcript.add_assistant(Message("assistant", (TextBlock(answer),)))
    spend.end_turn()


def _saved_session(folder: SessionFolder) -> tuple[SessionRecorder, Transcript, SpendMeter]:
    recorder = _recorder(folder)
    transcript, spend = Transcript(), SpendMeter({"m": Price(1, 1, 1, 1)})
    recorder.save(transcript.messages, spend, "m")  # nothing asked yet: no file
    assert recorder.id is None
    _turn(transcript, spend, "first prompt", "first answer")
    recorder.save(transcript.messages, spend, "m")
    transcript.add_prompt("second prompt")
    spend.begin_turn()
    use = ToolUse("t1", "read_file", {"path": "a.txt"})
    transcript.add_assistant(Message("assistant", (use,)))
    transcript.answer([use], [ToolResult("t1", ToolOutcome("hi"))])
    recorder.save(transcript.messages, spend, "m2")  # mid-turn, paired
    return recorder, transcript, spend


def test_a_session_reads_back_as_it_was_saved(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    recorder, transcript, spend = _saved_session(folder)
    recorder.close()
    [summary], problems = folder.summaries()
    assert problems == []
    assert (summary.id, summary.first_prompt, summary.model, summary.turns) == (
        recorder.id,
        "first prompt",
        "m2",
        2,
    )
    saved = folder.open(summary.id[:10])
    assert saved.state.messages == transcript.messages
    assert saved.messages[-1].content[-1] == TextBlock(
        "[The user interrupted this request before it was finished.]"
    )
    assert saved.state.turns == spend.turns_so_far()
    assert saved.state.session == spend.session
    saved.file.close()


def test_a_torn_last_line_is_dropped_and_cut_off(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    recorder, transcript, spend = _saved_session(folder)
    recorder.close()
    path = next(folder.folder.glob("*.jsonl"))
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"at": 0, "messa')  # killed in the middle of a write
    saved = folder.open(recorder.id or "")
    assert saved.state.messages == transcript.messages
    assert path.read_bytes() == whole
    again = SessionRecorder(folder, "anthropic", [].append, saved)
    transcript.add_assistant(Message("assistant", (TextBlock("done"),)))
    again.save(transcript.messages, spend, "m2")
    again.close()
    assert folder.open(recorder.id or "").state.messages == transcript.messages


def test_a_session_open_in_one_levelcode_is_not_opened_by_another(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    recorder, _transcript, _spend = _saved_session(folder)
    with pytest.raises(SessionUnavailable, match="open in another LevelCode"):
        folder.open(recorder.id or "")
    recorder.close()
    folder.open(recorder.id or "").file.close()


def test_only_this_workspace_is_offered(tmp_path: Path) -> None:
    here, there = _folder(tmp_path, "here"), _folder(tmp_path, "there")
    recorder, _t, _s = _saved_session(here)
    recorder.close()
    assert here.folder != there.folder
    assert there.summaries() == ([], [])
    there.folder.mkdir(parents=True)
    planted = there.folder / "planted.jsonl"  # another workspace's file copied over
    planted.write_bytes(next(here.folder.glob("*.jsonl")).read_bytes())
    found, problems = there.summaries()
    assert found == []
    assert problems == [f"{planted}: belongs to another workspace ({here.workspace})"]
    with pytest.raises(SessionUnavailable):
        there.latest(report=[].append)


def test_an_unreadable_file_is_one_line_each(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    folder.folder.mkdir(parents=True)
    (folder.folder / "a.jsonl").write_text("not json\n")
    (folder.folder / "b.jsonl").write_text(json.dumps({"levelcode_session": 99}) + "\n")
    found, problems = folder.summaries()
    assert found == []
    assert sorted(problems) == [
        f"{folder.folder / 'a.jsonl'}: line 1: not valid JSON (Expecting value: line 1 column 1 (char 0))",
        f"{folder.folder / 'b.jsonl'}: line 1: not a LevelCode session (or a newer format)",
    ]
    with pytest.raises(SessionUnreadable, match="line 1"):
        folder.open("a")


def test_the_newest_sessions_are_kept(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    for number in range(SESSIONS_KEPT + 3):
        recorder = _recorder(folder)
        transcript, spend = Transcript(), SpendMeter()
        _turn(transcript, spend, f"prompt {number}", "answer")
        recorder.save(transcript.messages, spend, "m")
        recorder.close()
        path = next(p for p in folder.folder.glob("*.jsonl") if p.stem == recorder.id)
        os.utime(path, (1000 + number, 1000 + number))
    found, _problems = folder.summaries()
    assert len(found) == SESSIONS_KEPT
    assert found[0].first_prompt == f"prompt {SESSIONS_KEPT + 2}"
    assert found[-1].first_prompt == "prompt 3"


def test_new_chat_begins_a_file_whose_figures_start_at_zero(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    recorder = _recorder(folder)
    transcript, spend = Transcript(), SpendMeter()
    _turn(transcript, spend, "chat one", "a")
    recorder.save(transcript.messages, spend, "m")
    first = recorder.id
    recorder.new_chat(spend)
    transcript.clear()
    _turn(transcript, spend, "chat two", "b")
    recorder.save(transcript.messages, spend, "m")
    recorder.close()
    assert recorder.id != first
    second = folder.open(recorder.id or "")
    assert len(second.state.turns) == 1
    assert second.state.session.usage == Usage(10, 5)
    assert spend.session.usage == Usage(20, 10)  # /cost still counts both


def test_a_failed_save_is_said_once_and_the_session_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    problems: list[str] = []
    folder = _folder(tmp_path)
    recorder = _recorder(folder, problems)
    transcript, spend = Transcript(), SpendMeter()
    _turn(transcript, spend, "hi", "a")
    recorder.save(transcript.messages, spend, "m")

    def disk_full(_fd: int, _data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("levelcode.agent.session_store.os.write", disk_full)
    for _ in range(2):
        _turn(transcript, spend, "more", "b")
        recorder.save(transcript.messages, spend, "m")
    assert problems == ["this session is no longer saved: [Errno 28] No space left on device"]


def test_the_folder_is_named_for_the_workspace_and_its_full_path(tmp_path: Path) -> None:
    one, two = workspace_folder(Path("/a/project"), tmp_path), workspace_folder(Path("/b/project"), tmp_path)
    assert one.name.startswith("project-")
    assert two.name.startswith("project-")
    assert one != two
