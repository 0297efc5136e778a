"""The egress helpers' one relay, on real sockets (socketpairs and 127.0.0.1). Load-bearing
direction: each side's end of stream reaches the other as a half-close while the other direction
goes on; a side that stops taking bytes does not cost the other direction its tail; nothing more
than a chunk is held (a reader that stops, stops the writer); a reset side ends the relay; a peer
that never closes its half cannot hold it past the idle limit. The second corpus: large streams
both ways at once arrive whole and in order, and an idle stream with both sides open is kept.

The relay runs on a thread here as the proxy and the forwarder run it; every wait is bounded.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest

from levelcode.sandbox.egress_relay import relay
from tests.support.listener import receive_all

WAIT = 20.0
Pair = tuple[socket.socket, socket.socket]


@contextmanager
def relayed(one: socket.socket, other: socket.socket, **options: float) -> Iterator[threading.Thread]:
    """`relay(one, other)` running on a thread; both closed afterwards, as its callers do."""
    thread = threading.Thread(target=_relay_then_close, args=(one, other), kwargs=options, daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        for side in (one, other):  # ends a relay a failed test left running
            with suppress(OSError):
                side.shutdown(socket.SHUT_RDWR)
        thread.join(WAIT)


def _relay_then_close(one: socket.socket, other: socket.socket, **options: float) -> None:
    with one, other:
        relay(one, other, **options)


def tcp_pair() -> Pair:
    """Two ends of one TCP connection on 127.0.0.1."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        near = socket.create_connection(listener.getsockname())
        far, _ = listener.accept()
    return near, far


def ends(make: str = "socketpair") -> tuple[socket.socket, socket.socket, socket.socket, socket.socket]:
    """(client, relay's client side, relay's server side, server), every wait on the test's ends
    bounded."""
    client, near = socket.socketpair() if make == "socketpair" else tcp_pair()
    far, server = socket.socketpair() if make == "socketpair" else tcp_pair()
    client.settimeout(WAIT)
    server.settimeout(WAIT)
    return client, near, far, server


@pytest.mark.parametrize("make", ["socketpair", "tcp"])
def test_each_end_of_stream_is_passed_on_as_a_half_close(make: str) -> None:
    """A request sent whole and its sender's half closed: the server reads to the end before it
    answers (as `nc -N`, an upload, or an HTTP/1.0 request do), and its answer still comes back."""
    client, near, far, server = ends(make)
    with client, server, relayed(near, far):
        client.sendall(b"request")
        client.shutdown(socket.SHUT_WR)
        assert receive_all(server) == b"request"  # ends: the half-close came through
        server.sendall(b"answer")
        server.shutdown(socket.SHUT_WR)
        assert receive_all(client) == b"answer"


def test_the_tail_still_comes_back_after_the_other_side_stopped_taking() -> None:
    """The server answers early and goes (an error answer to an upload) while the client still
    sends: what the server sent reaches the client whole, then its end."""
    client, near, far, server = ends()
    near.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # the tail is held up on its way
    tail = os.urandom(200_000)
    with client, relayed(near, far) as running:
        server.sendall(tail)
        server.close()
        client.sendall(b"more of the upload")  # written to a side that is gone
        assert receive_all(client) == tail
        running.join(WAIT)
        assert not running.is_alive()


def test_a_reader_that_stops_holds_the_writer_back() -> None:
    """Backpressure: while the server reads nothing, the client can put only buffers' worth into
    the relay, never the whole stream; once it reads, every byte arrives."""
    client, near, far, server = ends()
    client.setblocking(False)
    accepted = 0
    block = b"x" * 65536
    with server, relayed(near, far):
        while accepted < 64 * 2**20:
            try:
                accepted += client.send(block)
            except BlockingIOError:
                break
        assert accepted < 4 * 2**20  # the buffers on the way and one chunk held by the relay
        client.settimeout(WAIT)
        client.shutdown(socket.SHUT_WR)
        assert len(receive_all(server)) == accepted
        client.close()


def test_large_streams_both_ways_at_once_arrive_whole_and_in_order() -> None:
    client, near, far, server = ends("tcp")
    up, down = os.urandom(8 * 2**20), os.urandom(8 * 2**20)
    received: dict[str, bytes] = {}

    def serve() -> None:
        writer = threading.Thread(target=_send_then_half_close, args=(server, down))
        writer.start()
        received["up"] = receive_all(server)
        writer.join(WAIT)

    with client, server, relayed(near, far):
        serving = threading.Thread(target=serve)
        serving.start()
        sending = threading.Thread(target=_send_then_half_close, args=(client, up))
        sending.start()
        received["down"] = receive_all(client)
        sending.join(WAIT)
        serving.join(WAIT)
    digest = {key: hashlib.sha256(value).hexdigest() for key, value in received.items()}
    assert digest == {"up": hashlib.sha256(up).hexdigest(), "down": hashlib.sha256(down).hexdigest()}


def _send_then_half_close(side: socket.socket, data: bytes) -> None:
    side.sendall(data)
    side.shutdown(socket.SHUT_WR)


def test_a_reset_side_ends_the_relay_and_the_other_side_sees_its_end() -> None:
    client, near, far, server = ends("tcp")
    with client, relayed(near, far) as running:
        client.sendall(b"hello")
        assert server.recv(5) == b"hello"
        server.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        server.close()  # linger 0: a reset, not an end of stream
        assert receive_all(client) == b""
        running.join(WAIT)
        assert not running.is_alive()


def test_a_peer_that_never_closes_its_half_does_not_hold_the_relay() -> None:
    client, near, far, server = ends()
    with client, server, relayed(near, far, half_closed_idle=0.2) as running:
        client.shutdown(socket.SHUT_WR)
        assert receive_all(server) == b""  # the end came through; the server now says nothing
        running.join(WAIT)
        assert not running.is_alive()
        assert receive_all(client) == b""  # and the client is told the relay is over


def test_an_idle_stream_with_both_sides_open_is_kept() -> None:
    """No time limit while both sides are open (server-sent events may say nothing for long)."""
    client, near, far, server = ends()
    with client, server, relayed(near, far, half_closed_idle=0.05) as running:
        running.join(0.5)  # ten times the idle limit, with nothing sent
        assert running.is_alive()
        server.sendall(b"late")
        assert client.recv(4) == b"late"
