"""The slash-command table: every command /help names is one the REPL runs, and the reverse;
Claude Code's names (/clear, /quit) are listed too. /clear and /new, run on a real session (no
terminal: tests/support/repl_face.py), forget the conversation and leave the old one saved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from levelcode.agent.session_store import workspace_folder
from levelcode.cli.repl.slash_commands import BY_NAME, COMMANDS, help_text, run_slash_command
from levelcode.cli.repl.turns import send_message
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.repl_face import repl_face


def test_help_names_every_command_of_the_table() -> None:
    shown = help_text()
    for command in COMMANDS:
        for line in command.help:
            assert f"  {line}" in shown
            assert line.startswith(command.name)
    named = {line.split()[0] for line in shown.splitlines() if line.startswith("  /")}
    assert {name for name in named if ":" not in name} == {c.name for c in COMMANDS}


def test_claude_codes_names_are_listed_beside_ours() -> None:
    shown = help_text()
    assert "  /clear     " in shown
    assert "  /quit      " in shown
    assert BY_NAME["/clear"].run is BY_NAME["/new"].run
    assert BY_NAME["/quit"].run is BY_NAME["/exit"].run


def test_names_are_unique_lowercase_slash_words() -> None:
    assert len(BY_NAME) == len(COMMANDS)
    assert all(name.startswith("/") and name == name.lower() and " " not in name for name in BY_NAME)


def test_help_gives_the_attachment_cap_it_enforces() -> None:
    from levelcode.tools.file_mentions import MAX_ATTACHED_FILE_CHARS

    assert f"up to {MAX_ATTACHED_FILE_CHARS:,} characters" in help_text()


@pytest.mark.parametrize("command", ["/clear", "/new"])
async def test_clear_and_new_start_a_new_conversation_and_keep_the_old_one_saved(
    command: str, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with OPENAI.fake([Reply(text="Noted: 42."), Reply(text="I do not know.")]) as server:
        async with repl_face(server, tmp_path) as face:
            await send_message(face, "remember 42")
            assert await run_slash_command(face, command) is True
            await send_message(face, "what did I ask you to remember?")
            first, second = (request.body["messages"] for request in server.requests)
    assert "New chat." in face.shown()
    assert "remember 42" in json.dumps(first)
    assert "42" not in json.dumps(second)  # forgotten
    saved = sorted(workspace_folder(tmp_path, isolated_home / "state" / "sessions").glob("*.jsonl"))
    assert len(saved) == 2  # the old conversation stays saved; the new one has a file of its own
