"""Framing. Load-bearing direction: memory stays bounded whatever a server writes — an over-long
line is never held past the cap. The second corpus: ordinary lines, however they are split into
reads, come out whole and in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.stdio.framing import LineSplitter, Oversized, StderrRing


def test_lines_split_across_reads_come_out_whole() -> None:
    splitter = LineSplitter(100)
    assert splitter.feed(b'{"a"') == []
    assert splitter.feed(b': 1}\n{"b": 2}\n{"c"') == [b'{"a": 1}', b'{"b": 2}']
    assert splitter.feed(b": 3}\n") == [b'{"c": 3}']


def test_blank_lines_are_skipped() -> None:
    assert LineSplitter(100).feed(b"\n  \n\r\n{}\n") == [b"{}"]


def test_an_oversized_line_is_reported_once_and_skipped_to_its_end() -> None:
    splitter = LineSplitter(10)
    out = splitter.feed(b'{"id": 7, "result": ')
    assert len(out) == 1
    assert isinstance(out[0], Oversized)
    assert out[0].head.startswith(b'{"id": 7')
    assert splitter.feed(b"x" * 1000) == []
    assert splitter.buffered == 0
    assert splitter.feed(b'xx}\n{"ok": 1}\n') == [b'{"ok": 1}']


def test_buffer_never_exceeds_the_cap() -> None:
    splitter = LineSplitter(1000)
    for _ in range(100):
        splitter.feed(b"y" * 4096)
        assert splitter.buffered <= 1000


@given(st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=20), st.data())
def test_property_any_chunking_gives_the_same_lines(lines: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(line + b"\n" for line in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    splitter = LineSplitter(10_000)
    out: list[bytes | Oversized] = []
    start = 0
    for cut in [*cuts, len(stream)]:
        out.extend(splitter.feed(stream[start:cut]))
        start = cut
    assert out == [line for line in lines if line.strip()]


def test_stderr_ring_keeps_the_last_lines_cut_to_length() -> None:
    ring = StderrRing(lines=3, line_chars=5)
    ring.feed(b"one\ntwo\nthree\nfour-long-line\npart")
    assert ring.tail() == ("two", "three", "four-", "part")
    ring.feed(b"ial\n\xff\xfe\n")
    assert ring.tail(2) == ("parti", "\ufffd\ufffd")
