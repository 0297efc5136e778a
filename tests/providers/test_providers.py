"""The real provider classes, through the real SDKs, against the fake servers; each test runs once per API.

Load-bearing: streamed text reaches `on_text` in pieces and the turn arrives whole; tool calls and
results round-trip in a transcript the API accepts; every refusal surfaces as a ProviderError that
carries the API's own message; cancelling the awaiting task aborts the HTTP request.
"""

from __future__ import annotations

import asyncio
from types import ModuleType

import pytest

from levelcode.core.errors import ProviderAuthError, ProviderError, ProviderRequestError
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, user_text
from levelcode.core.outcome import ToolOutcome
from levelcode.providers import anthropic_provider, openai_provider
from levelcode.providers.base import ProviderSettings
from levelcode.providers.translate import invalid_arguments_error
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import Api, Connect, SchemaTool, complete

READ = SchemaTool("read_file")
WAIT = 10.0  # seconds; every wait in these tests is bounded by this


async def test_text_streams_in_pieces_and_arrives_whole(api: Api, connect: Connect) -> None:
    text = "Grüße from the fake model 🙂 streaming word by word"
    pieces: list[str] = []
    with api.fake([Reply(text=text)]) as server:
        turn = await complete(connect(server), [user_text("hi")], on_text=pieces.append)
    assert len(pieces) > 3
    assert "".join(pieces) == text
    assert turn.message == Message("assistant", (TextBlock(text),))
    assert turn.stop_reason == "end_turn"
    assert turn.usage is not None
    assert turn.usage.input_tokens > 0
    assert turn.usage.output_tokens > 0


async def test_tool_calls_and_results_round_trip(api: Api, connect: Connect) -> None:
    calls = (ToolCall("read_file", {"path": "a.txt"}), ToolCall("read_file", {"path": "b.txt"}))
    with api.fake([Reply(text="Reading both.", tool_calls=calls), Reply(text="Both read.")]) as server:
        provider = connect(server)
        first = await complete(provider, [user_text("read")], tools=(READ,))
        uses = first.message.tool_uses
        results = Message(
            "user", tuple(ToolResult(use.id, ToolOutcome(f"contents of {use.input['path']}")) for use in uses)
        )
        second = await complete(provider, [user_text("read"), first.message, results], tools=(READ,))
    assert first.message.text == "Reading both."
    assert [(use.name, use.input) for use in uses] == [
        ("read_file", {"path": "a.txt"}),
        ("read_file", {"path": "b.txt"}),
    ]
    assert len({use.id for use in uses}) == 2
    assert first.stop_reason == "tool_use"
    assert second.message.text == "Both read."
    assert api.offered_tools(server.requests[0]) == ["read_file"]
    assert api.result_texts(server.requests[1]) == ["contents of a.txt", "contents of b.txt"]


async def test_a_tool_without_arguments_gets_an_empty_input(api: Api, connect: Connect) -> None:
    with api.fake([Reply(tool_calls=(ToolCall("list_directory", {}),))]) as server:
        turn = await complete(connect(server), [user_text("ls")], tools=(SchemaTool("list_directory"),))
    assert turn.message.tool_uses[0].input == {}


async def test_arguments_that_are_not_json_become_a_clear_failure(api: Api, connect: Connect) -> None:
    broken = ToolCall("read_file", raw_arguments='{"path": "a.txt"')
    with api.fake([Reply(tool_calls=(broken,)), Reply(text="I will retry.")]) as server:
        provider = connect(server)
        first = await complete(provider, [user_text("read")], tools=(READ,))
        use = first.message.tool_uses[0]
        error = invalid_arguments_error(use)
        assert error is not None
        answer = Message("user", (ToolResult(use.id, error),))
        # the poisoned call goes back as a JSON object, so the conversation stays usable
        second = await complete(provider, [user_text("read"), first.message, answer], tools=(READ,))
    assert (use.input, use.invalid_arguments) == ({}, '{"path": "a.txt"')
    assert error.is_error
    assert error.text.startswith("ERROR: ")
    assert '{"path": "a.txt"' in error.text
    assert second.message.text == "I will retry."


async def test_an_illegal_tool_name_is_refused_with_the_api_message(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text="never sent")]) as server, pytest.raises(ProviderRequestError) as caught:
        await complete(connect(server), [user_text("hi")], tools=(SchemaTool("fs/read file"),))
    assert caught.value.status == 400
    assert "name" in str(caught.value)
    assert "pattern" in str(caught.value)  # the API's own words
    assert server.remaining_steps == 1


async def test_tool_name_length_limits_differ_by_api(api: Api, connect: Connect) -> None:
    name = "t" * 65  # legal for Anthropic (up to 128), not for OpenAI-shaped APIs (up to 64)
    with api.fake([Reply(text="ok")]) as server:
        provider = connect(server)
        if api.name == "anthropic":
            assert (
                await complete(provider, [user_text("hi")], tools=(SchemaTool(name),))
            ).message.text == "ok"
        else:
            with pytest.raises(ProviderRequestError, match="maximum length 64"):
                await complete(provider, [user_text("hi")], tools=(SchemaTool(name),))


async def test_an_unanswered_tool_use_is_refused(api: Api, connect: Connect) -> None:
    transcript = [
        user_text("go"),
        Message("assistant", (ToolUse("call_unanswered", "read_file", {"path": "x"}),)),
        user_text("and then?"),
    ]
    with api.fake([Reply(text="never sent")]) as server, pytest.raises(ProviderRequestError) as caught:
        await complete(connect(server), transcript, tools=(READ,))
    assert caught.value.status == 400
    assert "call_unanswered" in str(caught.value)


@pytest.mark.parametrize("status", [429, 500, 529])
async def test_a_passing_failure_is_retried(api: Api, connect: Connect, status: int) -> None:
    with api.fake([Reply(text="ok")]) as server:
        server.fail_next(status)
        turn = await complete(connect(server), [user_text("hi")])
    assert turn.message.text == "ok"
    assert len(server.requests) == 2


async def test_persistent_server_errors_end_in_a_clear_error(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text="never sent")]) as server:
        server.fail_next(500, count=10, message="the fake is down")
        with pytest.raises(ProviderRequestError) as caught:
            await complete(connect(server, max_retries=2), [user_text("hi")])
    assert caught.value.status == 500
    assert "the fake is down" in str(caught.value)
    assert "after 2 retries" in str(caught.value)
    assert len(server.requests) == 3


async def test_the_retry_count_is_configurable(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text="never sent")]) as server:
        server.fail_next(429, message="slow down")
        with pytest.raises(ProviderRequestError, match="slow down") as caught:
            await complete(connect(server, max_retries=0), [user_text("hi")])
    assert caught.value.status == 429
    assert len(server.requests) == 1


async def test_an_unreachable_server_is_a_clear_error(api: Api, connect: Connect) -> None:
    with api.fake() as server:
        provider = connect(server, max_retries=0)
    with pytest.raises(ProviderError, match="Could not reach") as caught:
        await complete(provider, [user_text("hi")])
    assert not isinstance(caught.value, ProviderRequestError)
    assert server.base_url in str(caught.value)


def test_a_missing_key_names_the_env_var_and_the_setting(api: Api) -> None:
    with pytest.raises(ProviderAuthError) as caught:
        api.provider_class(ProviderSettings(api.name, api.model, None, None))
    expected_var = "ANTHROPIC_API_KEY" if api.name == "anthropic" else "OPENAI_API_KEY"
    assert expected_var in str(caught.value)
    assert '"apiKey"' in str(caught.value)


async def test_a_wrong_key_is_an_auth_error_with_the_api_message(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text="never sent")]) as server, pytest.raises(ProviderAuthError) as caught:
        await complete(connect(server, api_key="wrong-key"), [user_text("hi")])
    api_words = "invalid x-api-key" if api.name == "anthropic" else "Incorrect API key provided"
    assert api_words in str(caught.value)
    assert len(server.requests) == 1  # a 401 is never retried


async def test_an_unknown_model_names_the_model_and_the_provider(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text="never sent")]) as server, pytest.raises(ProviderRequestError) as caught:
        await complete(connect(server, model="no-such-model"), [user_text("hi")])
    assert caught.value.status == 404
    message = str(caught.value)
    assert "'no-such-model'" in message
    assert api.name in message
    assert "--model" in message


async def test_cancelling_mid_stream_aborts_the_request(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text="The start of a long answer", hang=True)]) as server:
        streaming = asyncio.Event()
        task = asyncio.create_task(
            complete(connect(server), [user_text("hi")], on_text=lambda _piece: streaming.set())
        )
        await asyncio.wait_for(streaming.wait(), WAIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, WAIT)
        assert await asyncio.to_thread(server.client_gone.wait, WAIT)


async def test_cancelling_before_any_text_aborts_the_request(api: Api, connect: Connect) -> None:
    with api.fake([Reply(hang=True)]) as server:
        task = asyncio.create_task(complete(connect(server), [user_text("hi")]))
        assert await asyncio.to_thread(server.hanging.wait, WAIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, WAIT)
        assert await asyncio.to_thread(server.client_gone.wait, WAIT)


async def test_one_provider_serves_many_turns(api: Api, connect: Connect) -> None:
    with api.fake([Reply(text=f"answer {n}") for n in range(3)]) as server:
        provider = connect(server)
        answers = [(await complete(provider, [user_text(f"q{n}")])).message.text for n in range(3)]
    assert answers == ["answer 0", "answer 1", "answer 2"]


async def test_a_failing_text_callback_releases_the_connection(api: Api, connect: Connect) -> None:
    def explode(_piece: str) -> None:
        raise RuntimeError("display broke")

    with api.fake([Reply(text="Some text", hang=True)]) as server:
        with pytest.raises(RuntimeError, match="display broke"):
            await asyncio.wait_for(complete(connect(server), [user_text("hi")], on_text=explode), WAIT)
        assert await asyncio.to_thread(server.client_gone.wait, WAIT)


async def test_a_stream_cut_off_midway_is_a_clear_error(api: Api, connect: Connect) -> None:
    broken = pytest.raises(ProviderError, match="broke in the middle of the response")
    with api.fake([Reply(text="The start of an answer", cut_off=True)]) as server, broken as caught:
        await complete(connect(server, max_retries=0), [user_text("hi")])
    assert not isinstance(caught.value, ProviderRequestError)


@pytest.mark.parametrize("module", [anthropic_provider, openai_provider])
def test_a_stream_that_ends_without_its_final_event_is_not_a_turn(module: ModuleType) -> None:
    settings = ProviderSettings("openai", "m", "http://127.0.0.1:9/v1", "k")
    with pytest.raises(ProviderError, match="ended the response before it was complete"):
        module._TurnBuilder(lambda _piece: None).finish(settings)


def test_two_text_blocks_of_one_answer_stream_as_two_paragraphs() -> None:
    """An Anthropic answer may hold several text blocks (around a tool use or a thinking block):
    what streams to the screen and the turn's text both keep them apart, the same way."""
    from anthropic.types import (
        RawContentBlockDeltaEvent,
        RawContentBlockStartEvent,
        RawMessageStopEvent,
        TextDelta,
        ThinkingBlock,
    )
    from anthropic.types import TextBlock as SdkText

    def text_block(index: int, text: str) -> list[object]:
        start = RawContentBlockStartEvent(
            type="content_block_start", index=index, content_block=SdkText(type="text", text="")
        )
        delta = RawContentBlockDeltaEvent(
            type="content_block_delta", index=index, delta=TextDelta(type="text_delta", text=text)
        )
        return [start, delta]

    thinking = RawContentBlockStartEvent(
        type="content_block_start",
        index=1,
        content_block=ThinkingBlock(type="thinking", thinking="hm", signature="s"),
    )
    pieces: list[str] = []
    builder = anthropic_provider._TurnBuilder(pieces.append)
    for event in [*text_block(0, "First."), thinking, *text_block(2, "Second."), *text_block(3, "")]:
        builder.feed(event)  # type: ignore[arg-type]
    builder.feed(RawMessageStopEvent(type="message_stop"))
    turn = builder.finish(ProviderSettings("anthropic", "m", None, "k"))
    assert "".join(pieces) == turn.message.text == "First.\n\nSecond."
