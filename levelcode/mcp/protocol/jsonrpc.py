"""JSON-RPC 2.0 messages from an untrusted peer, parsed defensively into small types.

Pure. Anything a server sends is classified into exactly one of: a response, an error response,
a request (the server asking us something), a notification, or `Malformed` — never an exception.
`Malformed` keeps the request id when one can be found, so the caller can fail that request alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

PURE = True

RequestId = int | str

METHOD_NOT_FOUND = -32601


@dataclass(frozen=True)
class Response:
    id: RequestId
    result: Mapping[str, object]


@dataclass(frozen=True)
class ErrorResponse:
    id: RequestId | None
    code: int
    message: str
    data: object = None


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: Mapping[str, object]


@dataclass(frozen=True)
class Notification:
    method: str
    params: Mapping[str, object]


@dataclass(frozen=True)
class Malformed:
    reason: str
    id: RequestId | None = None
    fatal: bool = False  # the stream lost a message it cannot attribute: the connection is unusable


Incoming = Response | ErrorResponse | Request | Notification | Malformed

_ID_IN_PREFIX = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')


def parse_line(line: bytes) -> Incoming:
    try:
        payload = json.loads(line)
    except RecursionError:
        return Malformed("message nested too deeply", find_id(line))
    except ValueError as exc:  # includes invalid JSON and invalid UTF-8
        return Malformed(f"not JSON ({exc.__class__.__name__})", find_id(line))
    return classify(payload)


def classify(payload: object) -> Incoming:
    if not isinstance(payload, dict):
        return Malformed(f"expected a JSON object, got {type(payload).__name__}")
    raw_id = payload.get("id")
    request_id = raw_id if _is_id(raw_id) else None
    method = payload.get("method")
    if isinstance(method, str):
        params = payload.get("params", {})
        if params is not None and not isinstance(params, dict):
            return Malformed(f"params of {method!r} is not an object", request_id)
        if "id" in payload:
            if request_id is None:
                return Malformed(f"request {method!r} has an invalid id")
            return Request(request_id, method, params or {})
        return Notification(method, params or {})
    if "result" in payload:
        result = payload["result"]
        if request_id is None:
            return Malformed("response without a valid id")
        if not isinstance(result, dict):
            return Malformed(f"result is {type(result).__name__}, not an object", request_id)
        return Response(request_id, result)
    if "error" in payload:
        return _error(payload["error"], request_id)
    return Malformed("neither a request, a notification nor a response", request_id)


def _error(error: object, request_id: RequestId | None) -> Incoming:
    if not isinstance(error, dict):
        return Malformed("error is not an object", request_id)
    code, message = error.get("code"), error.get("message")
    if not isinstance(code, int) or isinstance(code, bool):
        return Malformed("error without an integer code", request_id)
    text = message if isinstance(message, str) else "(no message)"
    return ErrorResponse(request_id, code, text, error.get("data"))


def _is_id(value: object) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def find_id(prefix: bytes) -> RequestId | None:
    """The request id in the first bytes of a message that could not be parsed whole, if any."""
    match = _ID_IN_PREFIX.search(prefix[:4096])
    if match is None:
        return None
    token = match.group(1)
    return int(token) if token[:1] != b'"' else token[1:-1].decode("utf-8", "replace")


def encode(message: Mapping[str, object]) -> bytes:
    """One line: compact JSON, ASCII-only (so no byte in it can be a newline), then `\\n`."""
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


def request(
    request_id: RequestId, method: str, params: Mapping[str, object] | None = None
) -> dict[str, object]:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Mapping[str, object] | None = None) -> dict[str, object]:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def result_response(request_id: RequestId, result: Mapping[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: RequestId, code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
