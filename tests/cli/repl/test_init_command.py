"""`/init` on a real session (no terminal: tests/support/repl_face.py, a scripted approver for the
cards): the model is asked to look at the repository with the read and search tools and write
AGENTS.md, and its write asks like any edit; where AGENTS.md exists it is asked to read it and
improve it with exact edits, not to rewrite it, and the edit keeps the rest of the file. `/new`
reads the new AGENTS.md into the system prompt. (How a card looks and takes keys: the tmux tests.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.cli.repl.slash_commands import run_slash_command
from levelcode.cli.repl.turns import send_message
from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import OPENAI
from tests.support.approvers import ScriptedApprover
from tests.support.repl_face import repl_face

WRITTEN = "# AGENTS.md\n\nRun the tests with `make test`.\n"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")


def _first_prompt(server: ScriptedServer) -> str:
    user = [m for m in server.requests[0].body["messages"] if m["role"] == "user"]
    return str(user[0]["content"])


def _asked_to_change(approver: ScriptedApprover) -> list[str]:
    return [request.kind for request in approver.asked]


async def test_init_writes_agents_md_through_the_edit_card(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Demo\n\nmake test runs the tests.\n")
    steps = [
        Reply(tool_calls=(ToolCall("read_file", {"path": "README.md"}),)),
        Reply(tool_calls=(ToolCall("write_file", {"path": "AGENTS.md", "content": WRITTEN}),)),
        Reply(text="Wrote AGENTS.md: commands and layout."),
        Reply(text="A new chat answers."),
    ]
    approver = ScriptedApprover("once")
    with OPENAI.fake(steps) as server:
        async with repl_face(server, tmp_path, approver=approver) as face:
            await run_slash_command(face, "/init")
            assert _asked_to_change(approver) == ["edit"]
            assert (tmp_path / "AGENTS.md").read_text() == WRITTEN
            prompt = _first_prompt(server)
            assert "Write an AGENTS.md file at the root of this repository" in prompt
            assert "read_file, list_directory, find_files and search_files" in prompt
            await run_slash_command(face, "/new")
            await send_message(face, "hi")
        system = server.requests[-1].body["messages"][0]["content"]
    assert "Run the tests with `make test`." in system  # /new read the new AGENTS.md


async def test_init_improves_an_existing_agents_md_with_an_edit(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# AGENTS.md\n\nUse tabs.\nRun `make tset`.\n")
    edit = {"path": "AGENTS.md", "old_string": "make tset", "new_string": "make test"}
    steps = [
        Reply(tool_calls=(ToolCall("read_file", {"path": "AGENTS.md"}),)),
        Reply(tool_calls=(ToolCall("edit_file", edit),)),
        Reply(text="Fixed the test command."),
    ]
    approver = ScriptedApprover("once")
    with OPENAI.fake(steps) as server:
        async with repl_face(server, tmp_path, approver=approver) as face:
            await run_slash_command(face, "/init")
        prompt = _first_prompt(server)
    assert _asked_to_change(approver) == ["edit"]
    assert "has an AGENTS.md already" in prompt
    assert "do not rewrite it from scratch" in prompt
    assert "Read AGENTS.md first" in prompt
    assert (tmp_path / "AGENTS.md").read_text() == "# AGENTS.md\n\nUse tabs.\nRun `make test`.\n"
