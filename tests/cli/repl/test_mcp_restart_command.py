"""`/mcp restart NAME` on a real session (no terminal: tests/support/repl_face.py): a server that
failed at start is named under `/mcp` with the command that tries it again; once what it lacked is
there, the restart brings it up without a new chat, and the model's next request offers its
tools — the conversation kept."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from levelcode.cli.repl.slash_commands import run_slash_command
from levelcode.cli.repl.turns import send_message
from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.cli import write_settings
from tests.support.repl_face import repl_face
from tests.support.servers import fault_args_once


def flaky_server(marker: Path, pid_file: Path) -> dict[str, object]:
    args = list(fault_args_once(marker))
    return {"command": sys.executable, "args": args, "env": {"FAULT_PID_FILE": str(pid_file)}}


async def test_a_failed_server_restarts_in_the_session(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    marker = tmp_path / "db"
    write_settings(isolated_home, {"mcpServers": {"flaky": flaky_server(marker, tmp_path / "pids")}})
    with ANTHROPIC.fake([Reply(text="First answer."), Reply(text="Second answer.")]) as server:
        async with repl_face(server, tmp_path, ANTHROPIC) as face:
            await send_message(face, "hi")
            offered = ANTHROPIC.offered_tools(server.requests[-1])
            assert not any(name.startswith("flaky__") for name in offered)
            await run_slash_command(face, "/mcp")
            assert "/mcp restart flaky starts it again." in face.shown()
            assert "no database yet" in face.shown()
            marker.write_text("ready")
            await run_slash_command(face, "/mcp restart flaky")
            assert "Restarted 'flaky': running," in face.shown()
            await send_message(face, "again")
        last = server.requests[-1]
        assert "flaky__echo" in ANTHROPIC.offered_tools(last)
        assert len(last.body["messages"]) == 3  # the first turn is still there
