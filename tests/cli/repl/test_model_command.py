"""`/model`: the list of the provider's models (the price table's and the user's own, the one in
use marked, each with its window and price) — or, on a custom base URL, the models that server
lists — the names a session cannot switch to, and a switch moving everything that depends on the
model — the provider's model and window, the compaction window, the tool-search budget — on a
real session. Through the REPL's command (no terminal: tests/support/repl_face.py): a switch to a
model LevelCode does not know (its window said, the unknown price warned about), then to a known
one; the next request goes to it, `/cost` prices it, and the session file records it, so a
headless `run -c` goes on with it."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from rich.console import Console

from levelcode.agent.events import RecordingSink
from levelcode.agent.session_store import workspace_folder
from levelcode.cli.repl.model_command import model_command, model_listing, refusal
from levelcode.cli.repl.slash_commands import run_slash_command
from levelcode.cli.repl.turns import send_message
from levelcode.cli.start.chat_parts import ChatSession, open_session
from levelcode.cli.start.light_start import prepare_session
from levelcode.core.approvals import HeadlessApprover
from levelcode.policy.prices import Price
from levelcode.providers.base import ProviderSettings
from tests.fakes.fake_openai import fake_openai
from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env
from tests.support.repl_face import repl_face

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


async def test_the_command_lists_switches_prices_and_saves_the_model(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with ANTHROPIC.fake([Reply(text="From haiku."), Reply(text="Still haiku.")]) as server:
        async with repl_face(server, tmp_path, ANTHROPIC) as face:
            await run_slash_command(face, "/model")
            listed = face.shown()
            assert f"Models served by {server.base_url}" in listed
            assert "* claude-sonnet-5-5" in listed
            assert "  claude-haiku-5-5" in listed
            await run_slash_command(face, "/model fake-claude")
            assert "LevelCode does not know fake-claude" in face.shown()
            switched = "Model: anthropic/fake-claude from the next request on · window 128,000 tokens"
            assert switched in face.shown()
            await run_slash_command(face, "/model claude-haiku-5-5")
            assert (
                "Model: anthropic/claude-haiku-5-5 from the next request on · window 200,000 tokens"
                in face.shown()
            )
            await send_message(face, "hi")
            assert server.requests[-1].body["model"] == "claude-haiku-5-5"
            await run_slash_command(face, "/cost")
            cost = face.shown().rsplit("Tokens and cost", 1)[-1]  # what /cost printed
        assert cost.startswith(" (claude-haiku-5-5)")
        assert "input $0.10" in cost
        [saved] = workspace_folder(tmp_path, isolated_home / "state" / "sessions").glob("*.jsonl")
        marks = [json.loads(line)["mark"] for line in saved.read_text().splitlines() if '"mark"' in line]
        assert marks[-1]["model"] == "claude-haiku-5-5"
        command = [str(LEVELCODE), "run", "-c", "--provider", "anthropic", "--base-url", server.base_url]
        done = subprocess.run(
            [*command, "again"],
            cwd=tmp_path,
            env=provider_env(isolated_home, "anthropic"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert server.requests[-1].body["model"] == "claude-haiku-5-5"
