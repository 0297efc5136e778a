"""Tokens and cost per turn and for the session, as the loop records them. Load-bearing: every
finished request is counted once — in its turn (a compaction inside a turn included), or between
turns (`/compact`) — and the session is the sum of them all; an aborted turn keeps what its
finished requests cost; a model without a known price gives an unknown cost, never a low one.
Through the in-process wire provider (tests/fakes/wire_provider.py), whose usage is the fake
APIs' own (Anthropic's with prompt-cache reads and writes)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import reduce
from pathlib import Path
from typing import Any

import pytest

from levelcode.agent.compaction import SUMMARIZER_SYSTEM
from levelcode.agent.events import RecordingSink, TurnFinished
from levelcode.agent.loop import Agent
from levelcode.agent.spend import Spend, SpendMeter
from levelcode.agent.toolbox import Toolbox
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.errors import TurnAborted
from levelcode.core.messages import Usage
from levelcode.policy.prices import Price
from levelcode.providers.base import ProviderName
from levelcode.providers.prices import KNOWN_PRICES
from levelcode.tools.base import ToolContext
from levelcode.tools.registry import builtin_tools
from tests.fakes.scripted_server import Fail, Reply, ToolCall
from tests.fakes.wire_provider import WireProvider, system_text

SHAPES: list[ProviderName] = ["anthropic", "openai"]


def _total(usages: list[Usage]) -> Usage:
    return reduce(lambda a, b: a + b, usages, Usage())


def _agent(
    provider: WireProvider, workspace: Path, prices: Mapping[str, Price] | None = None
) -> tuple[Agent, RecordingSink]:
    sink = RecordingSink()
    toolbox = Toolbox(ToolContext(workspace), HeadlessApprover(), builtin_tools())
    return Agent(provider, toolbox, system="You are a test.", sink=sink, prices=prices), sink


def _script(*steps: Reply | Fail) -> Any:
    queue = list(steps)

    def answer(body: Mapping[str, Any]) -> Reply | Fail:
        summary = system_text(body) == SUMMARIZER_SYSTEM
        return Reply(text="The summary.") if summary else queue.pop(0)

    return answer


@pytest.mark.parametrize("shape", SHAPES)
async def test_each_turn_and_the_session_count_every_request_once(
    shape: ProviderName, tmp_path: Path
) -> None:
    listing = ToolCall("list_directory", {"path": "."})
    answer = _script(Reply("Looking.", (listing,)), Reply("First done."), Reply("Second done."))
    provider = WireProvider(shape, answer)
    agent, sink = _agent(provider, tmp_path)
    await agent.run_turn("first")
    first = _total(provider.usages)
    await agent.run_turn("second")
    second = provider.usages[-1]
    price = KNOWN_PRICES[provider.settings.model]
    assert [turn.usage for turn in agent.spend.turns] == [first, second]
    assert agent.spend.session.usage == first + second
    assert agent.spend.session.requests == 3
    expected = sum(price.cost(usage) for usage in provider.usages)
    assert agent.spend.session.cost == pytest.approx(expected)
    if shape == "anthropic":  # the second request of the first turn read its prefix from the cache
        assert first.cache_read_input_tokens > 0
    reports = [event.spend for event in sink.events if isinstance(event, TurnFinished)]
    assert [report.turn for report in reports if report] == agent.spend.turns
    assert reports[-1] is not None
    assert reports[-1].session == agent.spend.session
    assert reports[-1].model == provider.settings.model


@pytest.mark.parametrize("shape", SHAPES)
async def test_an_aborted_turn_keeps_what_its_finished_requests_cost(
    shape: ProviderName, tmp_path: Path
) -> None:
    listing = ToolCall("list_directory", {"path": "."})
    provider = WireProvider(shape, _script(Reply("", (listing,)), Reply("still thinking", hang=True)))
    agent, _ = _agent(provider, tmp_path)
    turn = asyncio.ensure_future(agent.run_turn("go"))
    await asyncio.wait_for(provider.hanging.wait(), 10)
    turn.cancel()
    with pytest.raises(TurnAborted):
        await turn
    assert len(provider.bodies) == 2
    assert agent.spend.turns == [Spend(provider.usages[0], agent.spend.turns[0].cost, 1)]
    assert agent.spend.turns[0].cost == pytest.approx(
        KNOWN_PRICES[provider.settings.model].cost(provider.usages[0])
    )


@pytest.mark.parametrize("shape", SHAPES)
async def test_compaction_is_counted_where_it_happened(shape: ProviderName, tmp_path: Path) -> None:
    provider = WireProvider(shape, _script(Reply("one"), Reply("two"), Reply("three")))
    agent, _ = _agent(provider, tmp_path)
    await agent.run_turn("first")
    await agent.run_turn("second")
    assert await agent.compact("/compact", keep="turn")
    summary = provider.usages[-1]
    await agent.run_turn("third")
    assert agent.spend.between == Spend(summary, agent.spend.between.cost, 1)
    assert sum(turn.requests for turn in agent.spend.turns) == 3
    assert agent.spend.session.usage == _total(provider.usages)
    assert agent.spend.session.requests == 4


async def test_an_unknown_model_counts_tokens_and_leaves_the_cost_unknown(tmp_path: Path) -> None:
    provider = WireProvider("openai", _script(Reply("hi")), model="qwen3-coder:30b")
    agent, sink = _agent(provider, tmp_path)
    await agent.run_turn("hello")
    assert agent.spend.session.usage == provider.usages[0]
    assert agent.spend.session.usage.input_tokens > 0
    assert agent.spend.session.cost is None
    (finished,) = [event for event in sink.events if isinstance(event, TurnFinished)]
    assert finished.spend is not None
    assert finished.spend.turn.cost is None


async def test_the_users_price_is_used(tmp_path: Path) -> None:
    provider = WireProvider("openai", _script(Reply("hi")), model="qwen3-coder:30b")
    agent, _ = _agent(provider, tmp_path, prices={"qwen3-coder:30b": Price(1_000_000, 0, 0, 0)})
    await agent.run_turn("hello")
    assert agent.spend.session.cost == provider.usages[0].input_tokens


def test_once_a_request_has_no_price_the_total_stays_unknown() -> None:
    meter = SpendMeter()
    meter.begin_turn()
    meter.record("gpt-5.5", Usage(10, 10))
    meter.record("no-such-model", Usage(1, 1))
    meter.record("gpt-5.5", Usage(10, 10))
    meter.record("gpt-5.5", None)  # a request that reported nothing is not one more request
    meter.end_turn()
    assert meter.turns == [Spend(Usage(21, 21), None, 3)]
    assert meter.session == meter.turns[0]
    assert meter.between == Spend()
