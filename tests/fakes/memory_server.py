"""The test servers (tests/servers/) without a process: each one's very `Server`, read and written
as JSON-RPC lines over a MemoryTransport (`MemoryWire`), each line it writes classified by
LevelCode's own `jsonrpc.parse_line` as a pipe's would be.

`MemoryServer` is the fault server — eras, tools, pages, definitions, answers, list_changed,
requests to the client — plus what only a test in the same process can script: resources,
templates and prompts (set them before the server starts: its capabilities are declared from
them), and subscriptions whose timing the test decides (tests/fakes/memory_subscriptions.py). A
process's behaviour has an in-memory form where it is protocol: an exit (`crash`) ends
the transport with the server's stderr lines, and its waits (`sleep`, `progress`) run on loop
timers. What needs a real process — start-up faults, `big`, `whereami`, the probes, grandchildren — raises
NeedsAProcess: test that with tests.support.servers.fault_spec. `MemoryTaskServer` is the
spec-written task server (list caching hints, request counts, tasks).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

from levelcode.mcp.protocol import jsonrpc
from tests.fakes.memory_subscriptions import Subscriptions
from tests.fakes.memory_transport import MemoryTransport
from tests.servers import fault_server, task_server

PROCESS_FLAGS = (
    "hang_at_start",
    "exit_at_start",
    "slow_start",
    "ignore_sigterm",
    "linger",
    "ask_after_close",
    "grandchildren",
    "pid_file",
)
PROCESS_TOOLS = frozenset({"big", "whereami", "crash_with_children", *fault_server.PROBE_NAMES})


class NeedsAProcess(AssertionError):
    """A test asked the in-memory server for something only a real process does."""


class MemoryWire:
    """One server in memory, whatever server it is: each `open_transport` is a new connection to
    it (a process, for the real one), all sharing its state. A subclass reads each message in
    `receive` and writes its lines through `_collect`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.received: list[dict[str, Any]] = []  # every message, as it read it off the wire
        self.transports: list[MemoryTransport] = []
        self._written: list[bytes] = []
        self._current: MemoryTransport | None = None

    def receive(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def open_transport(self) -> MemoryTransport:
        transport = MemoryTransport(name=self.name)
        transport.stderr = []
        transport.peer = lambda message: self._read(transport, message)
        self.transports.append(transport)
        return transport

    def methods(self) -> list[str]:
        """The method of every request and notification LevelCode sent it, in order."""
        return [str(m["method"]) for m in self.received if "method" in m]

    def push(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification now, on every connection still open."""
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})}
        for transport in self.transports:
            if not transport.closed:
                with self._answering(transport):
                    self._collect(json.dumps(message).encode() + b"\n")

    def _later(self, transport: MemoryTransport, seconds: float, work: Callable[[], None]) -> None:
        def run() -> None:
            if not transport.closed:
                with self._answering(transport):
                    work()

        asyncio.get_running_loop().call_later(seconds, run)

    def _read(self, transport: MemoryTransport, message: object) -> list[jsonrpc.Incoming]:
        """One message LevelCode sent, as the server reads it: a JSON line. What it writes in
        answer is returned (the transport delivers it on the next loop iteration)."""
        wire = json.loads(jsonrpc.encode(message))  # type: ignore[arg-type]
        self.received.append(wire)
        self._current = transport
        try:
            self.receive(wire)
        finally:
            self._current = None
        return self._lines()

    @contextlib.contextmanager
    def _answering(self, transport: MemoryTransport) -> Iterator[None]:
        """Outside a message's handling (a timer, a push): what it writes goes to `transport` now."""
        self._current = transport
        try:
            yield
        finally:
            self._current = None
        for message in self._lines():
            transport.deliver(message)

    def _collect(self, data: bytes) -> None:
        self._written.append(data)

    def _lines(self) -> list[jsonrpc.Incoming]:
        data, self._written = b"".join(self._written), []
        return [jsonrpc.parse_line(line) for line in data.split(b"\n") if line.strip()]


class MemoryServer(MemoryWire, fault_server.Server):
    """The fault server in memory, started with its command-line `server_flags`."""

    def __init__(self, *server_flags: str, name: str = "fault") -> None:
        args = fault_server.flags().parse_args(list(server_flags))
        if used := [flag for flag in PROCESS_FLAGS if getattr(args, flag)]:
            raise NeedsAProcess(f"{used} act on a process: start the real server (fault_spec)")
        MemoryWire.__init__(self, name)
        fault_server.Server.__init__(self, args, write=self._collect)
        self.resources: dict[str, str] = {}  # uri -> text
        self.templates: list[dict[str, Any]] = []
        self.prompts: dict[str, str] = {}  # name -> the text of its one user message
        self.subscriptions = Subscriptions(self._tell)
        self.changes_when_read: set[str] = set()  # each read of one changes it before it answers

    def receive(self, message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/cancelled":
            self.subscriptions.cancelled((message.get("params") or {}).get("requestId"))
        self.handle(message)

    def change(self, uri: str, text: str) -> None:
        """The resource's text changes now, and its subscribers are told."""
        self.resources[uri] = text
        self.subscriptions.updated(uri)

    # --- the fault server's hooks -------------------------------------------------------------

    def log(self, line: str) -> None:
        if self._current is not None:
            self._current.stderr.extend(line.splitlines())

    def content_capabilities(self) -> dict[str, Any]:
        declared: dict[str, Any] = {}
        if self.resources or self.templates:
            declared["resources"] = {"listChanged": True, "subscribe": True}
        if self.prompts:
            declared["prompts"] = {"listChanged": True}
        return declared

    def other(self, method: object, request_id: object, params: dict[str, Any]) -> None:
        if method == "subscriptions/listen" and self._current is not None:
            self.subscriptions.listen(request_id, params, self._current)
            return  # the stream stays open: no answer until it ends
        answer = self._content(method, params)  # a read answers the text from before it changes
        if self._current is not None:
            self._subscription_side(method, str(params.get("uri")), self._current)
        if answer is None:
            super().other(method, request_id, params)
        elif "error" in answer:
            self.refuse(request_id, -32002, str(answer["error"]))
        else:
            self.reply(request_id, answer)

    def call(self, request_id: object, name: object, arguments: dict[str, Any]) -> None:
        if name in PROCESS_TOOLS:
            raise NeedsAProcess(f"the fault server's {name!r} needs a real process (fault_spec)")
        super().call(request_id, name, arguments)

    def every(self, seconds: float, times: int, work: Callable[[int], None]) -> None:
        """On loop timers, each `seconds` after the one before, on the connection that asked."""
        transport = self._current
        assert transport is not None

        def run(n: int) -> None:
            work(n)
            if n < times:
                self._later(transport, seconds, lambda: run(n + 1))

        self._later(transport, seconds, lambda: run(1))

    def exit(self, code: int) -> None:
        """The connection that asked ends, as a pipe does when its process exits."""
        transport = self._current
        assert transport is not None
        asyncio.get_running_loop().call_soon(transport.exit, f"exit code {code}")

    # --- in memory ----------------------------------------------------------------------------

    def _tell(self, transport: MemoryTransport, message: dict[str, Any]) -> None:
        if transport is self._current:
            self.send(message)  # in its turn, among what it writes while handling a message
        else:
            with self._answering(transport):
                self.send(message)

    def _subscription_side(self, method: object, uri: str, transport: MemoryTransport) -> None:
        """What a subscribe or a read means to the subscriptions (a read of a resource that
        `changes_when_read` changes it, and its subscribers are told before the answer goes)."""
        if method == "resources/subscribe":
            self.subscriptions.subscribed.add((transport, uri))
        elif method == "resources/read":
            self.subscriptions.read(uri, transport)
            if uri in self.changes_when_read and uri in self.resources:
                self.change(uri, f"{self.resources[uri]}, changed as it was read")

    def _content(self, method: object, params: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to a resources or prompts request ({"error": why} for a missing one), or
        None for a method that is neither."""
        if method == "resources/list":
            return {"resources": [{"uri": uri, "name": uri} for uri in self.resources]}
        if method == "resources/templates/list":
            return {"resourceTemplates": self.templates}
        if method == "resources/read":
            uri = str(params.get("uri"))
            if uri not in self.resources:
                return {"error": f"no resource {uri}"}
            return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": self.resources[uri]}]}
        if method in ("resources/subscribe", "resources/unsubscribe"):
            return {}
        if method == "prompts/list":
            return {"prompts": [{"name": name, "description": f"prompt {name}"} for name in self.prompts]}
        if method == "prompts/get":
            name = str(params.get("name"))
            if name not in self.prompts:
                return {"error": f"no prompt {name}"}
            return {"messages": [{"role": "user", "content": {"type": "text", "text": self.prompts[name]}}]}
        return None


class MemoryTaskServer(MemoryWire, task_server.Server):
    """The task server in memory, started with its command-line `server_flags` (no port)."""

    def __init__(self, *server_flags: str, name: str = "tasks") -> None:
        MemoryWire.__init__(self, name)
        task_server.Server.__init__(self, task_server.flags().parse_args(list(server_flags)))

    def receive(self, message: dict[str, Any]) -> None:
        if message.get("method") == "tools/call" and (message.get("params") or {}).get("name") == "report":
            raise NeedsAProcess("the task server's 'report' sleeps in its thread: run it for real")
        reply = self.handle(message)
        if reply is not None:
            self._collect(json.dumps(reply).encode() + b"\n")
