"""The event-stream decoder: events split anywhere across chunks, every line ending, priming events
that only move the resume point, and a hard cap on what one event may buffer."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.http.sse import Event, Oversized, SseDecoder

STREAM = (
    b"id: 1\nretry: 250\ndata: \n\n"  # a priming event: an id and a delay, no data
    b'event: message\nid: 2\ndata: {"a":\ndata: 1}\n\n'
    b": comment\r\ndata: x\r\n\r\n"
)


def test_events_ids_and_retry() -> None:
    decoder = SseDecoder(1024)
    events = decoder.feed(STREAM)
    assert events == [Event('{"a":\n1}', "message", "2"), Event("x", "message", None)]
    assert decoder.last_event_id == "2"
    assert decoder.retry_ms == 250


@given(st.lists(st.integers(min_value=1, max_value=len(STREAM) - 1), max_size=8))
def test_chunk_boundaries_change_nothing(cuts: list[int]) -> None:
    decoder = SseDecoder(1024)
    points = [0, *sorted(set(cuts)), len(STREAM)]
    events = [e for a, b in itertools.pairwise(points) for e in decoder.feed(STREAM[a:b])]
    assert events == SseDecoder(1024).feed(STREAM)


def test_a_crlf_split_between_chunks_is_one_line_end() -> None:
    decoder = SseDecoder(1024)
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n\r\n") == [Event("a")]


def test_an_event_over_the_cap_becomes_one_marker_and_the_stream_goes_on() -> None:
    decoder = SseDecoder(64)
    out = decoder.feed(b'data: {"id": 7, "x": "' + b"y" * 100 + b'"}\n\ndata: ok\n\n')
    assert len(out) == 2
    assert isinstance(out[0], Oversized)
    assert out[0].head.startswith(b'{"id": 7')
    assert out[1] == Event("ok")


def test_an_endless_line_is_never_buffered_past_the_cap() -> None:
    decoder = SseDecoder(64)
    markers = [item for _ in range(100) for item in decoder.feed(b"data: " + b"z" * 50)]
    assert len(markers) == 1
    assert isinstance(markers[0], Oversized)
    assert len(decoder._pending) <= 64
    assert decoder.feed(b"\n\ndata: after\n\n") == [Event("after")]
