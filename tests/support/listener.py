"""Listeners on 127.0.0.1 that record what reaches them. `listener()`: TCP, the stand-in for a
hostile package registry (each connection's first bytes kept, answered with a 404). `Listener`:
TCP (answered like a tiny HTTP server) and UDP on one port, so a test can assert that a confined
command sent nothing."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TypeVar


class _Recorder(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server = self.server
        assert isinstance(server, _Server)
        self.request.settimeout(5)
        try:
            head = self.request.recv(300)
        except OSError:
            head = b""
        server.seen.append(head)
        self.request.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Recorder)
        self.seen: list[bytes] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


_Served = TypeVar("_Served", bound=socketserver.BaseServer)


@contextmanager
def serving(server: _Served) -> Iterator[_Served]:
    """`server` answering in a thread of its own for the duration of the block, then closed."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def listener() -> Iterator[_Server]:
    """A recording listener for the duration of the block; `.seen` holds what reached it."""
    with serving(_Server()) as server:
        yield server


class Listener:
    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.udp.setblocking(False)
        self.chunks: list[bytes] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        with contextlib.suppress(OSError):
            self.tcp.shutdown(socket.SHUT_RDWR)
        self.tcp.close()
        self._thread.join(timeout=10)
        self.udp.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.tcp.accept()
            except OSError:
                return
            with connection:
                self._record(b"<tcp connection>")
                connection.settimeout(5)
                with contextlib.suppress(OSError):
                    data = connection.recv(65536)
                    self._record(data)
                    connection.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")

    def _record(self, data: bytes) -> None:
        with self._lock:
            self.chunks.append(data)

    def received(self) -> bytes:
        """Everything that arrived so far, TCP and UDP; b"" when nothing did."""
        for datagram in _pending(self.udp):
            self._record(b"<udp>" + datagram)
        with self._lock:
            return b"".join(self.chunks)


def _pending(udp: socket.socket) -> Iterator[bytes]:
    while True:
        try:
            yield udp.recv(65536)
        except BlockingIOError:
            return


def receive_all(side: socket.socket) -> bytes:
    """Everything `side` receives until the other end's end of stream (its timeout bounds it)."""
    data = bytearray()
    while chunk := side.recv(65536):
        data += chunk
    return bytes(data)
