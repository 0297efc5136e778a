"""The one socket relay of the egress helpers: bytes copied both ways between two connected
sockets until both directions have ended — the proxy's tunnels (egress_service.py) and the
forwarder's connections inside the sandbox (egress_forwarder.py).

Standard library only and no LevelCode import: the forwarder loads it by path from its own folder,
which may be all of LevelCode the sandbox shows. Plumbing: never decides what passes.

How each direction ends, so that no stream loses its tail and no peer holds the relay forever:
- one side's end of stream is passed on as a half-close (shutdown SHUT_WR) once everything it sent
  is written; the other direction goes on (a request sent whole, its answer still coming);
- a side that can no longer be written to ends only the direction into it: what it still sends
  back is delivered whole (an early error answer, then its end);
- a side whose reading fails (a reset) is gone: the other side gets its end, and the direction
  into it stops, since nothing can reach it any more;
- backpressure: one chunk per direction is in flight here, and a side is not read again until
  the chunk it sent is written on;
- no time limit while both directions are open (a stream may idle for hours: server-sent events,
  long polls); once one has ended, the relay ends after HALF_CLOSED_IDLE_SECONDS without a byte
  moving, so a peer that never closes its half cannot hold it forever.

One blocking thread per direction: the kernel's own wait is the backpressure, and a poll loop on
one thread measured about a tenth more CPU per byte through the proxy and the forwarder.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

CHUNK = 64 * 1024
HALF_CLOSED_IDLE_SECONDS = 60.0
_AFTER_SHUTDOWN_SECONDS = 5.0  # a shutdown wakes a blocked call at once; this only bounds the wait


def relay(
    one: socket.socket, other: socket.socket, *, half_closed_idle: float = HALF_CLOSED_IDLE_SECONDS
) -> None:
    """Copy between `one` and `other` until both directions have ended (see above), on this thread
    and one more. Leaves both sockets open, for the caller to close. Never raises OSError."""
    for side in (one, other):
        side.setblocking(True)
    both = _Relay(one, other, half_closed_idle)
    back = threading.Thread(target=both.run, args=(1,), daemon=True)
    back.start()
    both.run(0)
    back.join()


class _Relay:
    def __init__(self, one: socket.socket, other: socket.socket, half_closed_idle: float) -> None:
        self.sockets = (one, other)
        self.half_closed_idle = half_closed_idle
        self.last_moved = time.monotonic()
        self.ended = (threading.Event(), threading.Event())

    def run(self, side: int) -> None:
        """Copy from `sockets[side]` to the other, then outlast the other direction."""
        self._copy(self.sockets[side], self.sockets[1 - side])
        self.last_moved = time.monotonic()
        self.ended[side].set()
        self._outlast(self.ended[1 - side])

    def _copy(self, source: socket.socket, target: socket.socket) -> None:
        buffer = bytearray(CHUNK)
        chunk = memoryview(buffer)
        try:
            while count := source.recv_into(buffer):
                self.last_moved = time.monotonic()
                try:
                    target.sendall(chunk[:count])
                except OSError:  # the target takes no more: only this direction is over
                    return
        except OSError:  # the source is gone: its end for the target, and nothing more for it
            _shutdown(target, socket.SHUT_RDWR)
            return
        _shutdown(target, socket.SHUT_WR)

    def _outlast(self, other_ended: threading.Event) -> None:
        """Wait for the other direction to end, ending it when nothing has moved for
        `half_closed_idle` seconds (a shutdown wakes its blocked call)."""
        while not other_ended.wait(max(0.0, self.last_moved + self.half_closed_idle - time.monotonic())):
            if time.monotonic() - self.last_moved >= self.half_closed_idle:
                for side in self.sockets:
                    _shutdown(side, socket.SHUT_RDWR)
                other_ended.wait(_AFTER_SHUTDOWN_SECONDS)
                return


def _shutdown(side: socket.socket, how: int) -> None:
    with contextlib.suppress(OSError):  # already gone: its end is seen there anyway
        side.shutdown(how)
