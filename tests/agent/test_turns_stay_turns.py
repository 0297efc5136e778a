"""Turns stay turns: every prompt reaches the API as its own text, whatever came before it — a
turn aborted while the model streamed, while a tool ran or while a card waited, a turn whose
request failed, `/compact`, compaction by itself — and every tool use stays answered.

Load-bearing direction: a request may carry no user text that is not exactly one prompt, one of
LevelCode's notes or a compaction summary (an aborted prompt glued to the next one is none of
them); the prompts it carries are the newest ones, in order, each once (older ones only where a
summary stands for them); and an interrupted or failed prompt is followed by a note saying so
before the next prompt. Checked on the exact request bodies, for both API shapes: many sequences
through the in-process wire provider (tests/fakes/wire_provider.py: the real translation, the fake
APIs' own checks), a few through the real providers and the fake HTTP servers.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from levelcode.agent.compaction import FALLBACK_HEADER, SUMMARIZER_SYSTEM, SUMMARY_HEADER
from levelcode.agent.events import RecordingSink
from levelcode.agent.loop import Agent
from levelcode.agent.toolbox import Toolbox
from levelcode.agent.transcript import FAILED_NOTE, INTERRUPTED_NOTE, TURN_END_NOTES
from levelcode.core.approvals import ApprovalRequest, Choice
from levelcode.core.errors import ProviderError, TurnAborted
from levelcode.providers.base import Provider
from levelcode.tools.base import Args, BuiltinTool, ToolContext
from tests.fakes.scripted_server import Fail, Reply, ScriptedServer, ToolCall
from tests.fakes.wire_provider import WireProvider, system_text
from tests.providers.support import ANTHROPIC, OPENAI, Api

Ending = Literal["answer", "abort_stream", "abort_tool", "abort_card", "fail"]
ABORTS = ("abort_stream", "abort_tool", "abort_card")
WORDS = ("fix", "the", "test", "SLOW", "x", "next", "y", "café", "naïve", "line\nbreak", "src/a.py", "ok?")
NOTE_AFTER = {"aborted": INTERRUPTED_NOTE, "failed": FAILED_NOTE}
SUMMARY = re.compile(rf"(?:{re.escape(SUMMARY_HEADER)}\nSUMMARY \d+\.|{re.escape(FALLBACK_HEADER)}.*)", re.S)


@dataclass(frozen=True)
class Turn:
    words: tuple[str, ...]
    rounds: tuple[int, ...]  # tool rounds before the ending: how many calls in each
    ending: Ending
    text: bool  # whether the model writes text with its calls and before a hang


@dataclass(frozen=True)
class Compact:
    pass


Action = Turn | Compact

turns = st.builds(
    Turn,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(tuple),
    st.lists(st.integers(1, 2), max_size=2).map(tuple),
    st.sampled_from(("answer", "answer", *ABORTS, "fail")),
    st.booleans(),
)
actions = st.lists(st.one_of(turns, st.just(Compact())), min_size=2, max_size=8)


# --- the conversation as the test knows it ---------------------------------------------------


@dataclass
class Conversation:
    """What was asked and how each turn ended; the model's script; every request with what the
    test knew when it was sent."""

    prompts: list[str] = field(default_factory=list)
    ended: dict[str, str] = field(default_factory=dict)
    moves: deque[Reply | Fail] = field(default_factory=deque)
    requests: list[tuple[Mapping[str, Any], tuple[str, ...], dict[str, str]]] = field(default_factory=list)
    summaries: int = 0  # how many times the model was asked for a summary

    def answer(self, body: Mapping[str, Any]) -> Reply | Fail:
        if system_text(body) == SUMMARIZER_SYSTEM:
            self.summaries += 1
            return Reply(text=f"SUMMARY {self.summaries}.")
        self.requests.append((body, tuple(self.prompts), dict(self.ended)))
        return self.moves.popleft()

    def script(self, prompt: str, turn: Turn) -> None:
        said = "looking" if turn.text else ""
        for calls in turn.rounds:
            self.moves.append(Reply(said, tuple(ToolCall("echo", {"n": n}) for n in range(calls))))
        self.moves.append(_ending(prompt, turn, said))


def _ending(prompt: str, turn: Turn, said: str) -> Reply | Fail:
    if turn.ending == "answer":
        return Reply(f"answer to {prompt}")
    if turn.ending == "abort_stream":
        return Reply(said, hang=True)
    if turn.ending == "fail":
        return Fail(500, "injected failure")
    first = "block" if turn.ending == "abort_tool" else "guarded"
    return Reply(said, (ToolCall(first), ToolCall("echo", {"n": 9})))


# --- the request as the API receives it ------------------------------------------------------

Item = tuple[str, str]  # ("text", a user text unit) | ("assistant", "") | ("result", tool id)


def wire_items(shape: str, body: Mapping[str, Any]) -> list[Item]:
    """A request's messages flattened. User text units: an Anthropic text block; in an
    OpenAI-shaped message, whose content is one string, each paragraph (blank-line separated)."""
    items: list[Item] = []
    for message in body["messages"]:
        role, content = message["role"], message.get("content")
        if role == "assistant":
            items.append(("assistant", ""))
        elif role == "tool":
            items.append(("result", message["tool_call_id"]))
        elif role == "user":
            items.extend(_user_items(shape, content))
    return items


def _user_items(shape: str, content: object) -> list[Item]:
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    items: list[Item] = []
    for part in parts:
        if part.get("type") == "tool_result":
            items.append(("result", part["tool_use_id"]))
        elif part.get("type") == "text":
            units = [part["text"]] if shape == "anthropic" else part["text"].split("\n\n")
            items.extend(("text", unit) for unit in units)
    return items


def check_request(
    shape: str, body: Mapping[str, Any], prompts: Sequence[str], ended: Mapping[str, str]
) -> None:
    items = wire_items(shape, body)
    texts = [text for kind, text in items if kind == "text"]
    for text in texts:
        assert text in prompts or text in TURN_END_NOTES or SUMMARY.fullmatch(text), (
            f"a user text that is no prompt, note or summary (glued?): {text!r}"
        )
    sent = [text for text in texts if text in prompts]
    assert len(set(sent)) == len(sent), f"a prompt sent twice: {sent}"
    assert sent == list(prompts[len(prompts) - len(sent) :]), f"not the newest prompts in order: {sent}"
    if len(sent) < len(prompts):
        assert any(SUMMARY.fullmatch(text) for text in texts), "older prompts dropped without a summary"
    positions = [items.index(("text", prompt)) for prompt in sent]
    for prompt, start, end in zip(sent, positions, positions[1:], strict=False):
        between = items[start + 1 : end]
        if ended[prompt] == "answered":
            assert ("assistant", "") in between, f"{prompt!r} and the next prompt are one turn"
        else:
            assert ("text", NOTE_AFTER[ended[prompt]]) in between, (
                f"{prompt!r} ({ended[prompt]}) is not marked before the next prompt: {between}"
            )


def check_all(shape: str, conversation: Conversation) -> None:
    assert conversation.requests, "no request reached the model"
    for body, prompts, ended in conversation.requests:
        check_request(shape, body, prompts, ended)


# --- playing a sequence ----------------------------------------------------------------------


@dataclass
class Stage:
    """The tools and the approver of a played conversation, and where an abort may strike."""

    reached: asyncio.Event = field(default_factory=asyncio.Event)

    async def _echo(self, _ctx: ToolContext, args: Args) -> str:
        return f"echo {args.get('n')} " + "x" * 800

    async def _block(self, _ctx: ToolContext, _args: Args) -> str:
        self.reached.set()
        await asyncio.Event().wait()
        return "never"

    async def decide(self, _request: ApprovalRequest) -> Choice:
        self.reached.set()
        await asyncio.Event().wait()
        return "deny"

    @property
    def interactive(self) -> bool:
        return True

    def toolbox(self) -> Toolbox:
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        tools = [
            BuiltinTool("echo", "Echoes.", schema, self._echo),
            BuiltinTool("block", "Never ends.", {"type": "object"}, self._block),
            BuiltinTool("guarded", "Asks first.", {"type": "object"}, self._echo, _always_ask),
        ]
        return Toolbox(ToolContext(Path("/nonexistent-workspace")), self, tools)


def _always_ask(_ctx: ToolContext, _args: Args) -> ApprovalRequest:
    return ApprovalRequest("command", "Run guarded", ("guarded",))


async def play(
    provider: Provider,
    conversation: Conversation,
    sequence: Sequence[Action],
    hanging: Callable[[], Awaitable[bool]],
) -> Agent:
    """Play the sequence (then one more answered prompt, so the end state is sent too)."""
    stage = Stage()
    agent = Agent(provider, stage.toolbox(), system="You are a test.", sink=RecordingSink())
    for index, action in enumerate([*sequence, Turn(("last",), (), "answer", False)]):
        if isinstance(action, Compact):
            await agent.compact("/compact", keep="turn")
        else:
            prompt = f"p{index}: {' '.join(action.words)}"
            conversation.prompts.append(prompt)
            conversation.script(prompt, action)
            conversation.ended[prompt] = await _one_turn(agent, prompt, action, stage, hanging)
        assert agent.transcript.is_paired()
    assert not conversation.moves, "the model's script was not used up"
    return agent


async def _one_turn(
    agent: Agent, prompt: str, action: Turn, stage: Stage, hanging: Callable[[], Awaitable[bool]]
) -> str:
    if action.ending in ABORTS:
        stage.reached.clear()
        point = asyncio.ensure_future(hanging() if action.ending == "abort_stream" else stage.reached.wait())
        turn = asyncio.ensure_future(agent.run_turn(prompt))
        await asyncio.wait({turn, point}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        point.cancel()
        assert not turn.done(), f"the turn ended before its abort point: {turn.exception()!r}"
        turn.cancel()
        with pytest.raises(TurnAborted):
            await turn
        return "aborted"
    turn = asyncio.ensure_future(agent.run_turn(prompt))
    if action.ending == "fail":
        with pytest.raises(ProviderError, match="injected failure"):
            await turn
        return "failed"
    await turn
    return "answered"


# --- the properties --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["anthropic", "openai"])
@given(sequence=actions, small_window=st.booleans())
@settings(max_examples=120)
def test_every_prompt_reaches_the_api_as_its_own_turn(
    shape: Literal["anthropic", "openai"], sequence: list[Action], small_window: bool
) -> None:
    conversation = Conversation()
    window = {"context_window": 1_500, "max_tokens": 300} if small_window else {}
    provider = WireProvider(shape, conversation.answer, **window)

    def hanging() -> Awaitable[bool]:
        provider.hanging.clear()  # before the turn starts: the coroutine runs later
        return provider.hanging.wait()

    asyncio.run(play(provider, conversation, sequence, hanging))
    check_all(shape, conversation)
    event(f"compacted: {conversation.summaries > 0}")


EVERY_ENDING: list[Action] = [
    Turn(("fix", "the", "test"), (1,), "answer", True),
    Turn(("SLOW", "x"), (), "abort_stream", True),
    Turn(("next", "y"), (), "answer", False),
    Compact(),
    Turn(("a",), (1,), "abort_tool", False),
    Turn(("b",), (2,), "abort_card", True),
    Turn(("c",), (), "fail", False),
    Turn(("d",), (1,), "answer", True),
    Compact(),
    Turn(("e",), (), "abort_stream", False),
]


def _through_http(api: Api, sequence: Sequence[Action]) -> Conversation:
    conversation = Conversation()
    server: ScriptedServer = api.fake([lambda request: conversation.answer(request.body)] * 200)

    async def main() -> None:
        provider = api.provider_class(api.settings(server, max_retries=0))

        def hanging() -> Awaitable[bool]:
            server.hanging.clear()
            return asyncio.to_thread(server.hanging.wait, 20)

        try:
            await play(provider, conversation, sequence, hanging)
        finally:
            await provider.aclose()

    with server:
        asyncio.run(main())
    check_all(api.name, conversation)
    return conversation


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda api: api.name)
def test_every_ending_through_the_real_provider_and_http(api: Api) -> None:
    assert _through_http(api, EVERY_ENDING).summaries == 2  # both /compact did compact


@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda api: api.name)
@given(sequence=actions)
@settings(max_examples=3)
def test_random_sequences_through_http(api: Api, sequence: list[Action]) -> None:
    _through_http(api, sequence)
