"""The 2026-07-28 per-request headers: which x-mcp-header marks are valid (a tool with an invalid
one is left out) and how values are spelled (Base64 for anything a header cannot carry plainly).

Load-bearing direction: an invalid mark always leaves the tool out; an unmarked argument is never
mirrored into a header."""

from __future__ import annotations

import base64

import pytest

from levelcode.mcp.http.request_headers import (
    callable_tools,
    encode_value,
    header_params,
    param_headers,
    standard_headers,
)


def _schema(**properties: object) -> dict[str, object]:
    return {"type": "object", "properties": properties}


INVALID = {
    "empty": _schema(v={"type": "string", "x-mcp-header": ""}),
    "object": _schema(v={"type": "object", "x-mcp-header": "V"}),
    "array": _schema(v={"type": "array", "x-mcp-header": "V"}),
    "number": _schema(v={"type": "number", "x-mcp-header": "V"}),
    "null": _schema(v={"type": "null", "x-mcp-header": "V"}),
    "untyped": _schema(v={"x-mcp-header": "V"}),
    "space": _schema(v={"type": "string", "x-mcp-header": "My Region"}),
    "colon": _schema(v={"type": "string", "x-mcp-header": "A:B"}),
    "non-ascii": _schema(v={"type": "string", "x-mcp-header": "Région"}),
    "control": _schema(v={"type": "string", "x-mcp-header": "A\tB"}),
    "not text": _schema(v={"type": "string", "x-mcp-header": 5}),
    "duplicate": _schema(
        a={"type": "string", "x-mcp-header": "R"}, b={"type": "string", "x-mcp-header": "r"}
    ),
}


@pytest.mark.parametrize("schema", INVALID.values(), ids=INVALID.keys())
def test_invalid_marks(schema: dict[str, object]) -> None:
    assert header_params(schema) is None


def test_valid_marks_and_unmarked_arguments() -> None:
    schema = _schema(
        region={"type": "string", "x-mcp-header": "Region"},
        n={"type": "integer", "x-mcp-header": "N"},
        flag={"type": "boolean", "x-mcp-header": "Flag"},
        query={"type": "string"},
    )
    assert header_params(schema) == {"region": "Region", "n": "N", "flag": "Flag"}
    assert header_params({"type": "object"}) == {}
    assert header_params(None) == {}


def test_values_are_plain_when_safe_and_base64_otherwise() -> None:
    assert encode_value("us-west1") == "us-west1"
    assert encode_value("us west 1") == "us west 1"
    assert encode_value(42) == "42"
    assert encode_value(False) == "false"
    for unsafe in (" padded ", "Hello, 世界", "line1\nline2", "\tindented", "a\r\nb"):
        encoded = encode_value(unsafe)
        assert encoded is not None
        assert encoded.startswith("=?base64?")
        assert encoded.endswith("?=")
        assert base64.b64decode(encoded[9:-2]).decode() == unsafe
    assert encode_value(None) is None
    assert encode_value({"a": 1}) is None


def test_param_headers_skip_null_missing_and_unmarked() -> None:
    mirrored = {"region": "Region", "verbose": "Verbose"}
    arguments = {"region": "eu", "verbose": None, "query": "SELECT 1"}
    assert param_headers(mirrored, arguments) == {"Mcp-Param-Region": "eu"}


def test_standard_headers() -> None:
    call = {"method": "tools/call", "params": {"name": "my-tool", "arguments": {}}}
    assert standard_headers(call) == {"Mcp-Method": "tools/call", "Mcp-Name": "my-tool"}
    read = {"method": "resources/read", "params": {"uri": "file:///a%20b"}}
    assert standard_headers(read)["Mcp-Name"] == "file:///a%20b"
    assert standard_headers({"method": "tools/list"}) == {"Mcp-Method": "tools/list"}
    assert standard_headers({"id": 1, "result": {}}) == {}


def test_callable_tools_leaves_out_only_the_invalid() -> None:
    tools = [
        {"name": "good", "inputSchema": _schema(r={"type": "string", "x-mcp-header": "R"})},
        {"name": "bad", "inputSchema": INVALID["number"]},
        {"name": "plain", "inputSchema": _schema(q={"type": "string"})},
    ]
    result, mirrored, left_out = callable_tools({"tools": tools, "nextCursor": "c"})
    assert [t["name"] for t in result["tools"]] == ["good", "plain"]  # type: ignore[union-attr,index]
    assert result["nextCursor"] == "c"
    assert mirrored == {"good": {"r": "R"}, "plain": {}}
    assert left_out == ["bad"]
