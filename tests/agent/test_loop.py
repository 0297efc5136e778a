"""The loop's pairing invariant, through the real provider code against fake provider servers that
refuse (HTTP 400) any transcript with an unanswered tool use. Load-bearing direction: after an
abort mid-stream or mid-tool, a tool that raises, or a provider failure, the transcript must stay
paired — proven both by checking it and by the next turn being accepted by the fake API."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from levelcode.agent.events import RecordingSink, TextDelta, ToolCallEvent, ToolResultEvent, TurnFinished
from levelcode.agent.loop import ABORTED_WHILE_RUNNING, Agent
from levelcode.agent.toolbox import Toolbox
from levelcode.agent.transcript import ABORTED_BEFORE_RUN
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.errors import ProviderError, TurnAborted
from levelcode.tools.base import BuiltinTool, ToolContext
from levelcode.tools.registry import builtin_tools
from tests.fakes.scripted_server import Fail, Reply, ScriptedServer, ToolCall
from tests.providers.support import Api, Connect
from tests.support.approvers import ScriptedApprover
from tests.support.processes import survivors


async def _raises(_ctx: ToolContext, _args: Mapping[str, Any]) -> str:
    raise RuntimeError("the tool broke")


async def _interrupts(_ctx: ToolContext, _args: Mapping[str, Any]) -> str:
    raise KeyboardInterrupt


BROKEN = BuiltinTool("broken_tool", "Always raises.", {"type": "object", "properties": {}}, _raises)
INTERRUPTING = BuiltinTool("interrupting_tool", "Raises KeyboardInterrupt.", {"type": "object"}, _interrupts)


def _agent(
    provider: Any, workspace: Path, *, approver: Any = None, autopilot: bool = True
) -> tuple[Agent, RecordingSink]:
    sink = RecordingSink()
    ctx = ToolContext(workspace, autopilot=autopilot)
    toolbox = Toolbox(ctx, approver or HeadlessApprover(), [*builtin_tools(), BROKEN, INTERRUPTING])
    return Agent(provider, toolbox, system="You are a test.", sink=sink), sink


def _server(api: Api, *steps: Any) -> ScriptedServer:
    return api.fake(list(steps))


async def test_text_streams_and_the_turn_finishes(api: Api, connect: Connect, tmp_path: Path) -> None:
    with _server(api, Reply(text="Hello there, streaming works.")) as server:
        agent, sink = _agent(connect(server), tmp_path)
        assert await agent.run_turn("hi") == "Hello there, streaming works."
    deltas = [e.text for e in sink.events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "Hello there, streaming works."
    assert isinstance(sink.events[-1], TurnFinished)


async def test_tools_run_one_after_another_and_results_go_back(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    calls = (ToolCall("read_file", {"path": "a.txt"}), ToolCall("list_directory", {"path": "."}))
    with _server(api, Reply(text="Looking.", tool_calls=calls), Reply(text="Found alpha.")) as server:
        agent, sink = _agent(connect(server), tmp_path)
        assert await agent.run_turn("what is in a.txt?") == "Found alpha."
        results = api.result_texts(server.requests[1])
    assert "alpha" in results[0]
    assert "a.txt" in results[1]
    kinds = [type(e).__name__ for e in sink.events if isinstance(e, ToolCallEvent | ToolResultEvent)]
    assert kinds == ["ToolCallEvent", "ToolResultEvent", "ToolCallEvent", "ToolResultEvent"]
    assert agent.transcript.is_paired()


async def test_a_tool_that_raises_becomes_an_error_result(api: Api, connect: Connect, tmp_path: Path) -> None:
    with _server(api, Reply(tool_calls=(ToolCall("broken_tool"),)), Reply(text="It broke.")) as server:
        agent, _ = _agent(connect(server), tmp_path)
        assert await agent.run_turn("try it") == "It broke."
        (result,) = api.result_texts(server.requests[1])
    assert "ERROR: broken_tool failed unexpectedly: RuntimeError: the tool broke" in result


async def test_unknown_tool_and_bad_arguments_are_error_results(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    calls = (ToolCall("no_such_tool"), ToolCall("read_file", raw_arguments='{"path": '))
    with _server(api, Reply(tool_calls=calls), Reply(text="ok")) as server:
        agent, _ = _agent(connect(server), tmp_path)
        await agent.run_turn("go")
        unknown, invalid = api.result_texts(server.requests[1])
    assert unknown.startswith("ERROR: there is no tool named 'no_such_tool'")
    assert "not a valid JSON object" in invalid


async def test_abort_mid_stream_keeps_the_transcript_paired(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    steps = [Reply(text="partial answer", tool_calls=(ToolCall("read_file", {"path": "x"}),), hang=True)]
    with _server(api, *steps, Reply(text="second turn fine")) as server:
        agent, _ = _agent(connect(server), tmp_path)
        turn = asyncio.ensure_future(agent.run_turn("first"))
        await asyncio.to_thread(server.hanging.wait, 10)
        turn.cancel()
        with pytest.raises(TurnAborted):
            await turn
        assert agent.transcript.is_paired()
        assert [m.role for m in agent.transcript.messages] == ["user"]
        assert await agent.run_turn("again") == "second turn fine"
    assert agent.transcript.is_paired()


async def test_abort_mid_tool_answers_every_call_and_kills_the_command(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    calls = (
        ToolCall("run_command", {"command": f"echo $$ > {pid_file}; exec sleep 1000"}),
        ToolCall("read_file", {"path": "never.txt"}),
    )
    with _server(api, Reply(tool_calls=calls), Reply(text="after abort")) as server:
        # Unconfined, approved by a person: the pid the command prints is then the host's.
        agent, _ = _agent(connect(server), tmp_path, approver=ScriptedApprover("once"), autopilot=False)
        turn = asyncio.ensure_future(agent.run_turn("run it"))
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.01)
        turn.cancel()
        with pytest.raises(TurnAborted):
            await turn
        assert agent.transcript.is_paired()
        answers = agent.transcript.messages[-1].tool_results
        assert [a.outcome for a in answers] == [ABORTED_WHILE_RUNNING, ABORTED_BEFORE_RUN]
        assert survivors([int(pid_file.read_text())], within=5) == []
        assert await agent.run_turn("next") == "after abort"  # the API accepted the answered calls


async def test_provider_failure_after_tools_keeps_the_transcript_paired(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    steps = [
        Reply(tool_calls=(ToolCall("list_directory", {"path": "."}),)),
        Fail(500, "down"),
        Reply(text="back"),
    ]
    with _server(api, *steps) as server:
        agent, _ = _agent(connect(server, max_retries=0), tmp_path)
        with pytest.raises(ProviderError):
            await agent.run_turn("list")
        assert agent.transcript.is_paired()
        assert await agent.run_turn("try again") == "back"


async def test_headless_denies_what_needs_approval(api: Api, connect: Connect, tmp_path: Path) -> None:
    calls = (ToolCall("write_file", {"path": "new.txt", "content": "x"}),)
    with _server(api, Reply(tool_calls=calls), Reply(text="denied")) as server:
        agent, _ = _agent(connect(server), tmp_path, autopilot=False)
        await agent.run_turn("write")
        (result,) = api.result_texts(server.requests[1])
    assert result.startswith("ERROR: not run: nobody can approve in this session")
    assert not (tmp_path / "new.txt").exists()


async def test_always_allow_is_remembered_for_the_session(api: Api, connect: Connect, tmp_path: Path) -> None:
    write = lambda name: ToolCall("write_file", {"path": name, "content": "x"})  # noqa: E731
    steps = [Reply(tool_calls=(write("a.txt"),)), Reply(tool_calls=(write("b.txt"),)), Reply(text="ok")]
    approver = ScriptedApprover("always")
    with _server(api, *steps) as server:
        agent, _ = _agent(connect(server), tmp_path, approver=approver, autopilot=False)
        await agent.run_turn("write two files")
    assert (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").exists()
    assert len(approver.asked) == 1


async def test_interactive_denial_tells_the_model_not_to_retry(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    calls = (ToolCall("run_command", {"command": "rm -rf build"}),)
    approver = ScriptedApprover("deny")
    with _server(api, Reply(tool_calls=calls), Reply(text="ok")) as server:
        agent, _ = _agent(connect(server), tmp_path, approver=approver)
        await agent.run_turn("clean")
        (result,) = api.result_texts(server.requests[1])
    assert approver.asked[0].warning is not None
    assert (
        result == "ERROR: the user denied this command; it was not run. Do not retry it unless the user asks."
    )


async def test_an_escaping_base_exception_still_leaves_every_call_answered(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    calls = (ToolCall("list_directory", {"path": "."}), ToolCall("interrupting_tool"), ToolCall("read_file"))
    with _server(api, Reply(tool_calls=calls)) as server:
        agent, _ = _agent(connect(server), tmp_path)
        with pytest.raises(KeyboardInterrupt):
            await agent.run_turn("go")
    assert agent.transcript.is_paired()
    answers = agent.transcript.messages[-1].tool_results
    assert [a.is_error for a in answers] == [False, True, True]


async def test_blank_text_before_a_call_is_not_sent_back(api: Api, connect: Connect, tmp_path: Path) -> None:
    """Models sometimes open with a blank line before a tool call; the API refuses a blank text
    block in the transcript ("must contain non-whitespace text"), which would fail every request."""
    calls = (ToolCall("list_directory", {"path": "."}),)
    with _server(api, Reply(text="\n\n", tool_calls=calls), Reply(text="listed")) as server:
        agent, _ = _agent(connect(server), tmp_path)
        assert await agent.run_turn("list") == "listed"
