"""A session's content to JSON and back: every block the provider is sent survives unchanged
(property-tested), the replay of records rebuilds the transcript and the spend, a record that is
not LevelCode's is refused without touching the state, and an unfinished last turn is closed with
the interrupted note while a finished one is left alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.agent.session_record import (
    BadRecord,
    SessionState,
    apply_record,
    check_header,
    closed_transcript,
    header_json,
    message_from_json,
    message_json,
    record_json,
    spend_from_json,
    spend_json,
)
from levelcode.agent.spend import Spend
from levelcode.agent.transcript import FAILED_NOTE, INTERRUPTED_NOTE
from levelcode.core.messages import Message, TextBlock, ToolResult, ToolUse, Usage, user_text
from levelcode.core.outcome import Media, ToolOutcome

texts = st.text(max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
blocks = st.one_of(
    st.builds(TextBlock, texts),
    st.builds(ToolUse, texts, texts, st.dictionaries(texts, json_values, max_size=3)),
    st.builds(
        ToolResult,
        texts,
        st.builds(
            ToolOutcome,
            texts,
            st.booleans(),
            st.lists(st.builds(Media, st.sampled_from(["image", "audio"]), texts, texts), max_size=2).map(
                tuple
            ),
            st.lists(texts, max_size=2).map(tuple),
        ),
    ),
)
messages = st.builds(
    Message, st.sampled_from(["user", "assistant"]), st.lists(blocks, min_size=1, max_size=4).map(tuple)
)


@given(messages)
def test_every_message_survives_json_unchanged(message: Message) -> None:
    through_text = json.loads(json.dumps(message_json(message)))
    assert message_from_json(through_text) == message


@given(st.integers(0, 10**9), st.integers(0, 10**9), st.none() | st.floats(0, 1e6), st.integers(0, 1000))
def test_a_spend_survives_json(inputs: int, outputs: int, cost: float | None, requests: int) -> None:
    spend = Spend(Usage(inputs, outputs, 3, 4), cost, requests)
    assert spend_from_json(json.loads(json.dumps(spend_json(spend)))) == spend


def _use(number: int) -> Message:
    return Message("assistant", (ToolUse(f"t{number}", "read_file", {"path": "a"}),))


def _result(number: int) -> Message:
    return Message("user", (ToolResult(f"t{number}", ToolOutcome("hi")),))


def test_records_rebuild_the_messages_and_the_turns() -> None:
    written = SessionState([user_text("one"), _use(1)], [Spend(requests=1)], Spend(), Spend(requests=1), "m1")
    first = record_json(written, 0, 0)
    written.messages.append(_result(1))
    written.messages[0] = user_text("one, edited")
    written.turns.append(Spend(requests=2))
    second = record_json(written, 0, 1)
    read = SessionState()
    for record in (first, second):
        apply_record(read, json.loads(json.dumps(record)))
    assert read == written


def test_a_record_that_is_not_ours_changes_nothing() -> None:
    state = SessionState([user_text("kept")], model="m")
    good = record_json(SessionState([user_text("a"), _use(1)], model="m2"), 0, None)
    broken: list[dict[str, Any]] = [
        {**good, "at": 5},  # past the end
        {**good, "messages": [{"role": "system", "content": [{"type": "text", "text": "x"}]}]},
        {**good, "messages": [{"role": "user", "content": [{"type": "image"}]}]},
        {**good, "messages": [{"role": "user", "content": []}]},
        {key: value for key, value in good.items() if key != "model"},
        {**good, "session": {"input_tokens": -1}},
        [good],
    ]
    for record in broken:
        with pytest.raises(BadRecord):
            apply_record(state, record)
        assert state == SessionState([user_text("kept")], model="m")


def test_only_a_header_of_this_format_is_one() -> None:
    header = header_json("id", "/w", "2026-01-01T00:00:00+00:00", "anthropic", "x" * 1000)
    assert check_header(header)["first_prompt"] == "x" * 300
    for bad in ({**header, "levelcode_session": 2}, {"id": "x"}, {**header, "workspace": None}, "text"):
        with pytest.raises(BadRecord):
            check_header(bad)


def test_an_unfinished_turn_is_closed_and_a_finished_one_left_alone() -> None:
    finished = [user_text("a"), Message("assistant", (TextBlock("done"),))]
    assert closed_transcript(finished) == finished
    failed = [user_text("a"), Message("user", (TextBlock("a"), TextBlock(FAILED_NOTE)))]
    assert closed_transcript(failed) == failed
    mid_turn = [user_text("a"), _use(1), _result(1)]
    closed = closed_transcript(mid_turn)
    assert closed[:2] == mid_turn[:2]
    assert closed[2].content == (*mid_turn[2].content, TextBlock(INTERRUPTED_NOTE))
    only_prompt = closed_transcript([user_text("a")])
    assert only_prompt == [Message("user", (TextBlock("a"), TextBlock(INTERRUPTED_NOTE)))]
    with pytest.raises(BadRecord):
        closed_transcript([user_text("a"), _use(1)])  # never saved so: a use without its result
