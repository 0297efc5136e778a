"""`/context` on a real session: the share of the model's window the context takes, the window
as compaction goes by it — the model's published one, the user's `contextWindow`, or the one the
API named — and, for a model whose window LevelCode does not know, that it is unknown."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from levelcode.agent.events import RecordingSink
from levelcode.cli.start.chat_parts import ChatSession, open_session
from levelcode.cli.start.light_start import prepare_session
from levelcode.core.approvals import HeadlessApprover
from levelcode.ui.context_view import render_context
from tests.support.cli import write_settings


@contextmanager
def session_for(workspace: Path, provider: str, model: str) -> Iterator[ChatSession]:
    args = argparse.Namespace(workspace=str(workspace), provider=provider, model=model)
    session = open_session(prepare_session(args), approver=HeadlessApprover(), sink=RecordingSink())
    try:
        yield session
    finally:
        asyncio.run(session.close())


def window_line(session: ChatSession) -> str:
    usage = session.context_usage()
    return next(line for line in render_context(usage).splitlines() if line.startswith("  window:"))


def test_context_shows_the_share_of_a_known_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with session_for(tmp_path, "anthropic", "claude-sonnet-5-5") as session:
        total = session.context_usage().total
        assert window_line(session) == (
            f"  window: {100 * total / 200_000:.1f}% used — {total:,} of claude-sonnet-5-5's 200,000 tokens"
        )
        session.agent.compactor.named_window = 100_000  # the API said so: compaction goes by it
        assert f"{total:,} of claude-sonnet-5-5's 100,000 tokens" in window_line(session)


def test_context_says_when_the_window_is_unknown(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with session_for(tmp_path, "openai", "qwen3-coder:30b") as session:
        assert window_line(session).startswith("  window: unknown for qwen3-coder:30b — ")
        assert 'of the 128,000 LevelCode assumes; set "contextWindow"' in window_line(session)
    write_settings(isolated_home, {"contextWindow": 32_768})
    with session_for(tmp_path, "openai", "qwen3-coder:30b") as session:
        assert "of qwen3-coder:30b's 32,768 tokens" in window_line(session)
