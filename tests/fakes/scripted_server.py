"""The part both fake model APIs share: the script, the HTTP server, and running one in its own process.

A script is a list of steps, consumed in order, one per accepted request:
- `Reply(text=..., tool_calls=(ToolCall(name, input),))`: the model's answer; `delay=SECONDS`
  holds it that long before anything is sent (the model thinking before its first token;
  a callable step that waits on an event does the same until the test says so). With `hang=True`
  the server streams the text, then holds the stream open until the client goes away
  (`client_gone` is then set) or the server stops: for cancellation tests. With `cut_off=True`
  it streams the text, then drops the connection mid-body, as a failing proxy would.
- `Fail(status, message)`: answer this request with that HTTP error in the API's own shape (with a
  `retry-after-ms` header, so the SDKs' retries are quick); `server.fail_next(500, count=2)`
  puts such steps first.
- a callable taking the `RecordedRequest` and returning a `Reply` or `Fail`.
The same script as JSON (for `python -m tests.fakes.fake_openai --script FILE`), a list or
`{"steps": [...]}`:

    [{"tool_calls": [{"name": "read_file", "input": {"path": "README.md"}}]},
     {"text": "Now the other one.", "tool_calls": [{"name": "list_directory", "input": {}}]},
     {"error": {"status": 429, "message": "slow down"}},
     {"text": "Done."}]

Keys of a JSON step: `text`, `tool_calls` (each `name`, `input`, optional `id`, optional
`raw_arguments` sent verbatim), `stop_reason`, `delay`, `hang`, `cut_off`; or only `error` (`status`,
`message`).

Every request that arrives is recorded (`server.requests`), accepted or not. Before a step is
used the request is checked like the real API would: key (401), a `Fail` step, model (404),
then the request itself (400: tool names, tool use/result pairing, ...).

`GET` of the API's model list (`/v1/models`) answers with the server's `models`, in the API's own
shape, after the key check; `lists_models=False` makes it a 404, as a server without one answers.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

DEFAULT_API_KEY = "test-key"
FAULT_POINT = None  # yielded by a shape's event stream where a hanging or cut-off reply stops sending


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: Mapping[str, Any] = field(default_factory=dict[str, Any])
    id: str | None = None
    raw_arguments: str | None = None  # sent verbatim instead of `input` (e.g. to script broken JSON)

    def arguments_json(self) -> str:
        return self.raw_arguments if self.raw_arguments is not None else json.dumps(dict(self.input))


@dataclass(frozen=True)
class Reply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str | None = None  # default: the API's word for "tool use" or "end of turn"
    hang: bool = False
    cut_off: bool = False
    delay: float = 0.0  # seconds before the first byte of the answer

    @property
    def stops_early(self) -> bool:
        return self.hang or self.cut_off


@dataclass(frozen=True)
class Fail:
    status: int
    message: str = "injected failure"
    retry_after_ms: int | None = 1


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]


Step = Reply | Fail | Callable[[RecordedRequest], Reply | Fail]


@dataclass(frozen=True)
class ApiError:
    """A refusal decided by the fake itself (key, model, validation), rendered in the API's shape."""

    status: int
    message: str
    type: str = "invalid_request_error"
    param: str | None = None
    code: str | None = None


class ApiShape(Protocol):
    """What differs between the fake APIs."""

    name: str
    path: str  # the endpoint, e.g. "/v1/messages"
    base_path: str  # what the SDK's base URL adds to http://host:port
    models_path: str  # the model list, e.g. "/v1/models"
    default_models: frozenset[str]

    def presented_key(self, headers: Mapping[str, str]) -> str | None: ...
    def bad_key(self, key: str | None) -> ApiError: ...
    def unknown_model(self, model: object) -> ApiError: ...
    def validate(self, body: Mapping[str, Any]) -> ApiError | None: ...
    def error_body(self, error: ApiError) -> dict[str, Any]: ...
    def models_page(self, models: Iterable[str]) -> dict[str, Any]: ...
    def response(self, reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]: ...
    def events(self, reply: Reply, body: Mapping[str, Any]) -> Iterator[bytes | None]: ...


def step_from_json(raw: Mapping[str, Any]) -> Reply | Fail:
    if "error" in raw:
        error = raw["error"]
        return Fail(int(error["status"]), str(error.get("message", "injected failure")))
    calls = tuple(
        ToolCall(c["name"], c.get("input", {}), c.get("id"), c.get("raw_arguments"))
        for c in raw.get("tool_calls", [])
    )
    faults = {"hang": bool(raw.get("hang", False)), "cut_off": bool(raw.get("cut_off", False))}
    delay = float(raw.get("delay", 0.0))
    return Reply(str(raw.get("text", "")), calls, raw.get("stop_reason"), delay=delay, **faults)


def load_script(path: Path) -> list[Step]:
    data = json.loads(path.read_text(encoding="utf-8"))
    steps = data["steps"] if isinstance(data, dict) else data
    return [step_from_json(step) for step in steps]


def text_pieces(text: str) -> list[str]:
    """Word by word (each with its trailing space), so streamed text arrives in several pieces."""
    return re.findall(r"\S+\s*|\s+", text)


def json_pieces(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "").encode() + f"data: {payload}\n\n".encode()


def token_estimate(value: object) -> int:
    return max(1, len(json.dumps(value)) // 4)


class ScriptedServer:
    """One fake API on 127.0.0.1 (port 0) in a background thread; a context manager."""

    def __init__(
        self,
        shape: ApiShape,
        steps: Iterable[Step] = (),
        *,
        api_key: str = DEFAULT_API_KEY,
        models: Iterable[str] | None = None,
        request_log: Path | None = None,
        port: int = 0,
        lists_models: bool = True,
    ) -> None:
        self.shape = shape
        self.api_key = api_key
        self.models = frozenset(models) if models is not None else shape.default_models
        self.lists_models = lists_models
        self.request_log = request_log
        self.hanging = threading.Event()  # a hanging reply has sent what it will send
        self.client_gone = threading.Event()  # a client closed its connection in the middle of a stream
        self._steps: deque[Step] = deque(steps)
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._http = _HttpServer(("127.0.0.1", port), _Handler, self)
        # A short poll interval makes `stop` quick: `shutdown` waits for the serving loop to look up.
        self._thread = threading.Thread(
            target=self._http.serve_forever, args=(0.02,), name=f"fake-{shape.name}", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.shape.base_path}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def remaining_steps(self) -> int:
        with self._lock:
            return len(self._steps)

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def fail_next(self, status: int, count: int = 1, message: str = "injected failure") -> None:
        with self._lock:
            self._steps.extendleft(Fail(status, message) for _ in range(count))

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        self._http.shutdown()
        self._http.close_connections()
        self._http.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            if self.request_log is not None:
                entry = {"path": request.path, "body": request.body}
                with self.request_log.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry) + "\n")

    def decide(self, request: RecordedRequest) -> Reply | Fail | ApiError:
        """What to answer: the checks the real API makes, in its order, then the next step."""
        key = self.shape.presented_key(request.headers)
        if key != self.api_key:
            return self.shape.bad_key(key)
        with self._lock:
            upcoming = self._steps[0] if self._steps else None
            if isinstance(upcoming, Fail):  # injected faults come before any look at the request
                self._steps.popleft()
                return upcoming
            if request.body.get("model") not in self.models:
                return self.shape.unknown_model(request.body.get("model"))
            error = self.shape.validate(request.body)
            if error is not None:
                return error
            if not self._steps:
                return ApiError(
                    400, f"fake {self.shape.name} server: the script has no step left for this request"
                )
            step = self._steps.popleft()
        decided = step if isinstance(step, Reply | Fail) else step(request)
        check_reply = getattr(self.shape, "check_reply", None)
        refused = check_reply(decided, request.body) if check_reply and isinstance(decided, Reply) else None
        return refused or decided

    def think(self, seconds: float) -> None:
        """Wait `seconds` before answering, as a model does before its first token (a server
        that is stopping ends the wait)."""
        self._closing.wait(seconds)

    def hold(self, connection: socket.socket) -> None:
        """Keep a response open until the client closes the connection or the server stops."""
        self.hanging.set()
        while not self._closing.is_set():
            readable, _, _ = select.select([connection], [], [], 0.05)
            if readable and _peer_closed(connection):
                self.client_gone.set()
                return


def _peer_closed(connection: socket.socket) -> bool:
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[_Handler], fake: ScriptedServer) -> None:
        super().__init__(address, handler)
        self.fake = fake
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def close_connections(self) -> None:
        """Wake every handler thread blocked on a kept-alive connection, so closing never waits."""
        with self.connections_lock:
            for connection in self.open_connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, as the real services do
    server: _HttpServer

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.open_connections.discard(self.connection)
        with contextlib.suppress(OSError):  # the client may be gone already
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        fake = self.server.fake
        fake.record(RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, {}))
        key = fake.shape.presented_key({k.lower(): v for k, v in self.headers.items()})
        if self.path.split("?")[0] != fake.shape.models_path or not fake.lists_models:
            self._send_error(ApiError(404, f"Not found: {self.path}", type="not_found_error"))
        elif key != fake.api_key:
            self._send_error(fake.shape.bad_key(key))
        else:
            self._send_json(200, fake.shape.models_page(sorted(fake.models)))

    def do_POST(self) -> None:
        fake = self.server.fake
        body = self._read_json()
        if body is None:
            self._send_error(ApiError(400, "There was an error parsing the body: not a JSON object"))
            return
        request = RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        fake.record(request)
        if self.path.split("?")[0] != fake.shape.path:
            self._send_error(ApiError(404, f"Not found: {self.path}", type="not_found_error"))
        else:
            self._answer(fake.decide(request), body)

    def _answer(self, decision: Reply | Fail | ApiError, body: Mapping[str, Any]) -> None:
        if isinstance(decision, Reply) and decision.delay:
            self.server.fake.think(decision.delay)
        if isinstance(decision, ApiError):
            self._send_error(decision)
        elif isinstance(decision, Fail):
            self._send_fail(decision)
        elif body.get("stream"):
            self._send_stream(decision, body)
        elif decision.stops_early:
            self.close_connection = True
            if decision.hang:
                self.server.fake.hold(self.connection)
        else:
            self._send_json(200, self.server.fake.shape.response(decision, body))

    def _read_json(self) -> dict[str, Any] | None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            parsed = json.loads(raw)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None

    def _send_fail(self, fail: Fail) -> None:
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(fail.status, "api_error")
        error = ApiError(fail.status, fail.message, type=kind)
        headers = {"retry-after-ms": str(fail.retry_after_ms)} if fail.retry_after_ms is not None else {}
        self._send_json(fail.status, self.server.fake.shape.error_body(error), headers)

    def _send_error(self, error: ApiError) -> None:
        self._send_json(error.status, self.server.fake.shape.error_body(error))

    def _send_json(
        self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, reply: Reply, body: Mapping[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self._send_events(reply, body)
        except (BrokenPipeError, ConnectionResetError):  # the client went away mid-stream
            self.close_connection = True
            self.server.fake.client_gone.set()

    def _send_events(self, reply: Reply, body: Mapping[str, Any]) -> None:
        for event in self.server.fake.shape.events(reply, body):
            if event is FAULT_POINT:
                self.close_connection = True  # a cut-off reply ends here: no final chunk, connection closed
                if reply.hang:
                    self.server.fake.hold(self.connection)
                return
            self._write_chunk(event)
        self._write_chunk(b"")  # the zero-length chunk ends the body

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()
