"""Output caps: the head and the tail survive, the middle is cut and counted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from levelcode.tools.output_caps import HeadTailBuffer, visible_control_chars


def test_small_output_is_kept_whole() -> None:
    buffer = HeadTailBuffer(100)
    buffer.add(b"hello ")
    buffer.add(b"world")
    assert buffer.render() == "hello world"


def test_large_output_keeps_head_and_tail() -> None:
    buffer = HeadTailBuffer(10)
    for chunk in (b"ABCDE", b"-" * 1000, b"VWXYZ"):
        buffer.add(chunk)
    assert (
        buffer.render()
        == "ABCDE\n[... 1000 bytes of output cut from the middle; 1010 bytes in all ...]\nVWXYZ"
    )


@given(st.lists(st.binary(max_size=50), max_size=20), st.integers(min_value=2, max_value=64))
def test_never_more_than_the_limit_and_nothing_lost_below_it(chunks: list[bytes], limit: int) -> None:
    buffer = HeadTailBuffer(limit)
    for chunk in chunks:
        buffer.add(chunk)
    data = b"".join(chunks)
    assert buffer.total == len(data)
    if len(data) <= limit:
        assert buffer.render() == data.decode("utf-8", errors="replace")
    else:
        assert buffer.cut == len(data) - limit


def test_control_characters_become_visible() -> None:
    assert visible_control_chars("a\tb\nc\x1b[0m\x00\x7f") == "a\tb\nc\\x1b[0m\\x00\\x7f"
