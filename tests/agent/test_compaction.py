"""Compaction: the context never dies full. Through the real provider code against fake provider
servers that enforce a small window and answer 400 "prompt is too long" as the real APIs do.

Load-bearing directions: a long task finishes without the API ever refusing a request as too long
(the older turns are summarized first); when the API does refuse one, the turn still finishes
after one compaction and one retry; a compacted transcript is always paired and keeps the newest
tool results (a property over arbitrary paired transcripts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from levelcode.agent.compaction import (
    SUMMARIZER_SYSTEM,
    SUMMARY_HEADER,
    can_start,
    cut_index,
    fit_results,
    join_summary,
    last_turn,
)
from levelcode.agent.events import Notice, RecordingSink
from levelcode.agent.loop import Agent
from levelcode.agent.toolbox import Toolbox
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, unanswered_tool_uses, user_text
from levelcode.core.outcome import ToolOutcome
from levelcode.tools.base import ToolContext
from levelcode.tools.registry import builtin_tools
from tests.fakes.scripted_server import RecordedRequest, Reply, ToolCall
from tests.providers.support import Api, Connect

FILES = 8
FILE_CHARS = 6_000  # ~1,500 tokens each: eight of them overflow a 12,000-token window


def _system_text(request: RecordedRequest) -> str:
    system = request.body.get("system")
    if isinstance(system, list):
        return "".join(block.get("text", "") for block in system)
    if isinstance(system, str):
        return system
    first = request.body["messages"][0]
    return str(first.get("content")) if first.get("role") == "system" else ""


def reader_model(summaries: list[str]) -> Any:
    """A model that reads the files one by one, then answers; asked for a summary, it writes one.
    (A request the fake refuses never reaches the model.)"""
    reads = [0]

    def answer(request: RecordedRequest) -> Reply:
        if _system_text(request) == SUMMARIZER_SYSTEM:
            summaries.append(str(request.body["messages"]))
            return Reply(text=f"Read files 0 to {reads[0] - 1} so far; each held a long block of text.")
        if reads[0] >= FILES:
            return Reply(text="All files read.")
        reads[0] += 1
        return Reply(tool_calls=(ToolCall("read_file", {"path": f"f{reads[0] - 1}.txt"}),))

    return answer


def _workspace(tmp_path: Path) -> Path:
    for i in range(FILES):
        lines = [f"contents of file {i} ", *("x" * 99 for _ in range(FILE_CHARS // 100))]
        (tmp_path / f"f{i}.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


def _agent(provider: Any, workspace: Path) -> tuple[Agent, RecordingSink]:
    sink = RecordingSink()
    toolbox = Toolbox(ToolContext(workspace), HeadlessApprover(), builtin_tools())
    return Agent(provider, toolbox, system="You are a test.", sink=sink), sink


def _notices(sink: RecordingSink) -> list[str]:
    return [e.text for e in sink.events if isinstance(e, Notice)]


async def test_a_long_task_is_compacted_before_the_window_is_full(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    summaries: list[str] = []
    model = reader_model(summaries)
    with api.fake([model] * 20, context_window=12_000) as server:
        agent, sink = _agent(connect(server, context_window=12_000), _workspace(tmp_path))
        answer = await agent.run_turn("read every file")
        requests = server.requests
    assert answer == "All files read."
    assert len(summaries) >= 1
    assert any(n.startswith("context compacted (the context was nearly full): ") for n in _notices(sink))
    assert agent.transcript.is_paired()
    first = agent.transcript.messages[0]
    assert first.role == "user"
    assert isinstance(first.content[0], TextBlock)
    assert first.content[0].text.startswith(SUMMARY_HEADER)
    last_request = str(requests[-1].body["messages"])
    assert "contents of file 7 " in last_request  # the newest tool results are kept word for word
    assert "contents of file 0 " not in last_request


async def test_a_too_long_answer_leads_to_one_compaction_and_a_retry(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    summaries: list[str] = []
    with api.fake([reader_model(summaries)] * 20, context_window=9_000) as server:
        # LevelCode believes the window is far larger, so only the API's refusal tells it otherwise
        agent, sink = _agent(connect(server, context_window=1_000_000), _workspace(tmp_path))
        answer = await agent.run_turn("read every file")
    assert answer == "All files read."
    assert any(
        n.startswith("context compacted (the API said the prompt is too long): ") for n in _notices(sink)
    )
    assert agent.compactor.named_window == 9_000  # learned from the API's own words
    assert agent.transcript.is_paired()


async def test_compact_on_demand_keeps_the_last_turn(api: Api, connect: Connect, tmp_path: Path) -> None:
    summaries: list[str] = []
    with api.fake([reader_model(summaries)] * 20) as server:
        agent, sink = _agent(connect(server), _workspace(tmp_path))
        assert not await agent.compact("/compact", keep="turn")  # one turn: nothing older
        await agent.run_turn("read every file")
        agent.transcript.add_prompt("and now?")
        assert await agent.compact("/compact", keep="turn")
    messages = agent.transcript.messages
    assert len(messages) == 1
    assert messages[0].text.startswith(SUMMARY_HEADER)
    assert messages[0].text.endswith("and now?")
    assert any(n.startswith("context compacted (/compact): ") for n in _notices(sink))


# --- the cut, as a property ------------------------------------------------------------------------

texts = st.text(min_size=1, max_size=300)


@st.composite
def paired_transcripts(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = [user_text(draw(texts))]
    for turn in range(draw(st.integers(0, 6))):
        uses = [
            ToolUse(f"id{turn}_{i}", "read_file", {"path": draw(texts)})
            for i in range(draw(st.integers(0, 3)))
        ]
        messages.append(Message("assistant", (TextBlock(draw(texts)), *uses)))
        if uses:
            results = [ToolResult(u.id, ToolOutcome(draw(st.text(max_size=5_000)))) for u in uses]
            messages.append(Message("user", tuple(results)))
        elif draw(st.booleans()):
            messages.append(user_text(draw(texts)))
    return messages


@given(paired_transcripts(), st.integers(0, 3_000))
def test_property_a_compacted_transcript_is_paired_and_keeps_the_newest_results(
    messages: list[Message], keep: int
) -> None:
    if cut_index(messages, keep) is None:
        assert not any(can_start(m) for m in messages[1:])
    if last_turn(messages) is None:
        assert not any(m.role == "user" and can_start(m) for m in messages[1:])
    for cut in (cut_index(messages, keep), last_turn(messages)):
        if cut is None:
            continue
        kept = fit_results(messages[cut:], keep // 2)
        compacted = join_summary("summary", kept)
        assert compacted[0].role == "user"
        assert unanswered_tool_uses(compacted) == []
        assert not compacted[0].tool_results
        newest = messages[-1].tool_results
        assert [r.tool_use_id for r in compacted[-1].tool_results] == [r.tool_use_id for r in newest]
