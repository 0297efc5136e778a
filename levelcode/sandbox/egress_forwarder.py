"""The egress forwarder: inside the sandbox, the proxy's address the confined command is given.

Run inside bwrap as `python -I -S egress_forwarder.py SOCKET PORT -- COMMAND…` (egress.py builds
that line). It listens on 127.0.0.1:PORT in the sandbox's own network namespace, starts COMMAND
with its own stdin, stdout and stderr, copies every connection to the proxy's Unix socket and
back until COMMAND ends, then ends as COMMAND did. Plumbing only, with no say in what passes:
the proxy outside decides, and whatever runs in here may reach the socket directly anyway.

It sits on the start of every sandboxed server, so COMMAND starts first (connections wait in the
listening socket's backlog), and the relay and threads come after. COMMAND dies with the
forwarder (PR_SET_PDEATHSIG), as it did with bwrap's --die-with-parent before the forwarder sat
between. Standard library and the relay beside it (egress_relay.py, loaded from this file's
folder) only: it runs in the sandbox, from a path that may be all it can see of the package.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable

Relay = Callable[[socket.socket, socket.socket], None]
PRIVATE_TMP_HINT = " (the sandbox's /tmp is private: a program under /tmp is not in there)"


def main(argv: list[str]) -> None:
    """Run the command behind the forwarder, and end as it did (never returns)."""
    socket_path, port, *rest = argv
    command = rest[1:] if rest[:1] == ["--"] else rest
    listener = socket.create_server(("127.0.0.1", int(port)))
    started: list[int] = []
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda sig, _frame: pass_on(started, sig))
    started.append(spawn(command))
    null = os.open(os.devnull, os.O_RDWR)  # the command's stdin and stdout are its own now
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    import threading

    threading.Thread(target=serve, args=(listener, socket_path, load_relay()), daemon=True).start()
    end_like(os.waitstatus_to_exitcode(os.waitpid(started[0], 0)[1]))


def spawn(command: list[str]) -> int:
    """Fork (no thread runs yet) and exec `command`, killed when this process dies."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:
        prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the forwarder died before the line above ran
            os._exit(1)
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        os.execvp(command[0], command)
    except OSError as exc:
        hint = PRIVATE_TMP_HINT if command[0].startswith("/tmp/") else ""
        os.write(2, f"[sandbox] could not start {command[0]}: {exc.strerror or exc}{hint}\n".encode())
    os._exit(127)


def load_relay() -> Relay:
    """The relay (egress_relay.py) from this file's folder: run as a script under -I, that folder
    is not on the import path, and the package above it may not be in the sandbox at all. It is
    put after the standard library, so it can shadow none of it."""
    if __package__:  # imported as part of the package (the tests)
        from levelcode.sandbox.egress_relay import relay

        return relay
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    loaded: Relay = __import__("egress_relay").relay
    return loaded


def serve(listener: socket.socket, socket_path: str, relay: Relay) -> None:
    import threading

    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=forward, args=(client, socket_path, relay), daemon=True).start()


def forward(client: socket.socket, socket_path: str, relay: Relay) -> None:
    with client, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as proxy:
        try:
            proxy.connect(socket_path)
        except OSError as exc:
            os.write(2, f"[sandbox] the egress proxy cannot be reached: {exc}\n".encode())
            _quietly(client.sendall, b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n")
            return
        relay(client, proxy)


def _quietly(action: Callable[..., object], argument: object) -> None:
    """`action(argument)`, an OSError ignored (a connection the other side already closed).
    Not contextlib.suppress: every import here delays the command's start."""
    try:  # noqa: SIM105 (see above)
        action(argument)
    except OSError:
        pass


def pass_on(started: list[int], number: int) -> None:
    if not started:
        raise SystemExit(128 + number)
    _quietly(lambda pid: os.kill(pid, number), started[0])


def end_like(status: int) -> None:
    """Exit as the command did (the same signal, raised again), without interpreter teardown."""
    if status < 0:
        if -status not in (signal.SIGKILL, signal.SIGSTOP):  # they keep their default anyway
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    os._exit(status)


if __name__ == "__main__":
    main(sys.argv[1:])
