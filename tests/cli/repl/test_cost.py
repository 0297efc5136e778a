"""Cost on a real session (no terminal: tests/support/repl_face.py): a tokens-and-cost line after
each turn, `/cost` with each turn and the session, `/help` naming it; and an aborted turn (what
Ctrl-C does: tests/cli/repl/test_prompt_loop_terminal.py) reaching the API as its own request,
marked as interrupted, not glued to the next message."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from levelcode.agent.transcript import INTERRUPTED_NOTE
from levelcode.cli.repl.slash_commands import run_slash_command
from levelcode.cli.repl.turns import send_message
from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.repl_face import FaceForTests, repl_face


async def abort_while_hanging(face: FaceForTests, hanging: threading.Event, text: str) -> None:
    """Send `text` and abort its turn once the model's reply hangs, as Ctrl-C does."""
    sent = asyncio.ensure_future(send_message(face, text))
    assert await asyncio.to_thread(hanging.wait, 20)
    assert face.turn is not None
    face.turn.cancel()
    await sent


async def test_tokens_and_cost_per_turn_and_an_aborted_turn_stays_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    steps = [Reply(text="Hello."), Reply(text="thinking…", hang=True), Reply(text="Next answer.")]
    with ANTHROPIC.fake(steps) as server:
        async with repl_face(server, tmp_path, ANTHROPIC) as face:
            await send_message(face, "hi")
            line = next(line for line in face.shown().splitlines() if line.startswith("tokens: "))
            assert " in · " in line
            assert " out · $0.0" in line
            assert "(session $" in line
            await abort_while_hanging(face, server.hanging, "SLOW x")
            await send_message(face, "next y")
            last_user = server.requests[-1].body["messages"][-1]
            assert [block["text"] for block in last_user["content"]] == ["SLOW x", INTERRUPTED_NOTE, "next y"]
            await run_slash_command(face, "/help")
            assert "/cost      tokens and cost" in face.shown()
            await run_slash_command(face, "/cost")
            shown = face.shown().rsplit("Tokens and cost", 1)[-1]  # what /cost printed
    assert shown.startswith(" (claude-sonnet-5-5)")
    assert "per million tokens (the provider's list price): input $2.00 · cache read $0.10" in shown
    rows = {
        " ".join(line.split()[:-5]): line.split()[-5:]
        for line in shown.splitlines()
        if line.startswith(("  turn ", "  session "))
    }
    assert list(rows) == ["turn 1", "turn 2", "turn 3", "session"]
    assert rows["turn 2"] == ["0", "0", "0", "0", "$0.00"]  # aborted before any answer: nothing billed
    assert rows["session"][-1].startswith("$0.0")
