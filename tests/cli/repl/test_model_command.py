"""`/model`: the list of the provider's models (the price table's and the user's own, the one in
use marked, each with its window and price) — or, on a custom base URL, the models that server
lists — the names a session cannot switch to, and a switch moving everything that depends on the
model — the provider's model and window, the compaction window, the tool-search budget — on a
real session."""

from __future__ import annotations

import argparse
import asyncio
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from rich.console import Console

from levelcode.agent.events import RecordingSink
from levelcode.cli.repl.model_command import model_command, model_listing, refusal
from levelcode.cli.start.chat_parts import ChatSession, open_session
from levelcode.cli.start.light_start import prepare_session
from levelcode.core.approvals import HeadlessApprover
from levelcode.policy.prices import Price
from levelcode.providers.base import ProviderSettings
from tests.fakes.fake_openai import fake_openai

ANTHROPIC_API = ProviderSettings("anthropic", "claude-sonnet-5-5")


def test_the_listing_marks_the_model_in_use_and_shows_windows_and_prices() -> None:
    text = model_listing(ANTHROPIC_API, None, {"qwen3-coder:30b": Price(0, 0, 0, 0)})
    lines = text.splitlines()
    assert lines[0].startswith("Models of anthropic (* in use")
    [current] = [line for line in lines if line.startswith("  * ")]
    assert current.split()[1:4] == ["claude-sonnet-5-5", "window", "200,000"]
    assert "$2.00 in · $10.00 out" in current
    assert any(line.split()[0] == "claude-opus-5-5" for line in lines[1:])
    assert not any("gpt-" in line for line in lines)
    assert "qwen3-coder:30b" in text
    assert "(your prices)" in text


def test_a_model_the_table_does_not_know_is_listed_first_when_in_use() -> None:
    settings = ProviderSettings("openai", "qwen2.5-coder:14b", base_url="http://localhost:11434/v1")
    lines = model_listing(settings, None, {}).splitlines()
    assert lines[1].split()[:2] == ["*", "qwen2.5-coder:14b"]
    assert lines[1].endswith("price unknown")


def test_names_a_session_cannot_switch_to() -> None:
    assert refusal("claude-opus-5-5", ANTHROPIC_API) is None
    assert refusal("my-own-model", ANTHROPIC_API) is None  # the API decides
    other = refusal("gpt-5.5", ANTHROPIC_API)
    assert other is not None
    assert "start LevelCode with --provider openai --model gpt-5.5" in other
    proxied = ProviderSettings("openai", "gpt-5.5", base_url="https://openrouter.ai/api/v1")
    assert refusal("anthropic/claude-sonnet-4.5", proxied) is None  # a proxy serves both
    assert refusal("bad\x1bname", ANTHROPIC_API) is not None


def test_a_switch_moves_the_window_the_compaction_and_the_tool_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    args = argparse.Namespace(workspace=str(tmp_path), provider="anthropic", model="claude-sonnet-5-5")
    start = prepare_session(args)
    session = open_session(start, approver=HeadlessApprover(), sink=RecordingSink())
    try:
        assert session.provider.settings.context_window == 200_000
        budget_before = session.mcp.router.search_policy.budget_tokens
        session.agent.compactor.named_window = 150_000  # the API named the old model's window
        switched = session.switch_model("fake-model")
        assert switched.model == "fake-model"
        assert session.agent.provider.settings.model == "fake-model"
        assert session.agent.compactor.provider.settings.context_window == 128_000
        assert session.agent.compactor.window == 128_000
        assert session.mcp.router.search_policy.budget_tokens == budget_before * 128_000 // 200_000
    finally:
        asyncio.run(session.close())


@asynccontextmanager
async def served_session(tmp_path: Path, base_url: str, model: str) -> AsyncIterator[ChatSession]:
    args = argparse.Namespace(workspace=str(tmp_path), provider="openai", model=model, base_url=base_url)
    session = open_session(prepare_session(args), approver=HeadlessApprover(), sink=RecordingSink())
    try:
        yield session
    finally:
        await session.close()


async def shown(session: ChatSession, *words: str) -> str:
    out = io.StringIO()
    await model_command(Console(file=out, width=200), session, list(words))
    return out.getvalue()


async def test_on_a_custom_base_url_the_list_is_what_the_server_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with fake_openai(models=["llama3.3:70b", "qwen3-coder:30b"]) as server:
        async with served_session(tmp_path, server.base_url, "qwen3-coder:30b") as session:
            text = await shown(session)
        assert [r.path for r in server.requests] == ["/v1/models"]
    lines = text.splitlines()
    title = f"Models served by {server.base_url} (* in use; /model NAME switches; per million tokens):"
    assert lines[0] == title
    assert [line.split()[:2] for line in lines[1:]] == [["llama3.3:70b", "window"], ["*", "qwen3-coder:30b"]]
    assert lines[1].split() == ["llama3.3:70b", "window", "unknown", "price", "unknown"]
    assert "gpt-5.5" not in text  # OpenAI's catalogue is not what this server serves


async def test_a_server_without_a_model_list_gets_a_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with fake_openai(lists_models=False) as server:
        async with served_session(tmp_path, server.base_url, "fake-gpt") as session:
            text = await shown(session)
    assert (
        text.split()
        == (
            f"{server.base_url} does not list the models it serves (it has no /models). In use: fake-gpt; "
            "/model NAME switches to another name it serves."
        ).split()
    )


async def test_a_server_that_cannot_be_reached_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with fake_openai() as server:
        pass  # stopped: nothing listens there any more
    async with served_session(tmp_path, server.base_url, "fake-gpt") as session:
        text = " ".join((await shown(session)).split())
    assert text.startswith(f"The models {server.base_url} serves could not be listed: Could not reach openai")
    assert text.endswith("In use: fake-gpt; /model NAME switches to another name it serves.")
