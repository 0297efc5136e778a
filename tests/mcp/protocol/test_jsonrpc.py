"""Parsing what a server sends. Load-bearing direction: no input may raise or be mistaken for the
answer to a request it does not name; a malformed message keeps the request id when it can be
found, so only that request fails. The second corpus: well-formed messages parse exactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.jsonrpc import (
    ErrorResponse,
    Malformed,
    Notification,
    Request,
    Response,
    parse_line,
)


def test_well_formed_messages() -> None:
    assert parse_line(b'{"jsonrpc":"2.0","id":1,"result":{"a":1}}') == Response(1, {"a": 1})
    assert parse_line(b'{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}') == ErrorResponse(
        "x", -32601, "no"
    )
    assert parse_line(b'{"jsonrpc":"2.0","id":0,"method":"roots/list"}') == Request(0, "roots/list", {})
    assert parse_line(b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}') == Notification(
        "notifications/tools/list_changed", {}
    )


@pytest.mark.parametrize(
    ("line", "expected_id"),
    [
        (b"not json", None),
        (b"\xff\xfe\xc3\x28", None),
        (b"[1, 2]", None),
        (b'"text"', None),
        (b"{}", None),
        (b'{"id": 5, "result": [1]}', 5),
        (b'{"id": 5, "result": "x"}', 5),
        (b'{"id": true, "result": {}}', None),
        (b'{"id": 3, "error": "bad"}', 3),
        (b'{"id": 3, "error": {"code": "x", "message": "m"}}', 3),
        (b'{"id": 9, "result": {oops', 9),
        (b'{"id": {"n": 1}, "method": "ping"}', None),
        (b'{"method": "x", "params": [1]}', None),
        (b"[" * 100_000, None),
    ],
)
def test_malformed_messages_never_raise_and_keep_the_id_they_name(line: bytes, expected_id: object) -> None:
    parsed = parse_line(line)
    assert isinstance(parsed, Malformed)
    assert parsed.id == expected_id


@given(st.binary(max_size=200))
def test_property_arbitrary_bytes_never_raise(line: bytes) -> None:
    parse_line(line)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)


@given(
    st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]), json_values)
)
def test_property_arbitrary_objects_classify_into_exactly_one_type(payload: dict[str, object]) -> None:
    parsed = jsonrpc.classify(payload)
    assert isinstance(parsed, Response | ErrorResponse | Request | Notification | Malformed)
    if isinstance(parsed, Response):
        assert payload["id"] == parsed.id


def test_encode_is_one_ascii_line() -> None:
    line = jsonrpc.encode({"text": "line\nbreak \u2028 ünïcode \ud800"})
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert json.loads(line)["text"].startswith("line\nbreak")
