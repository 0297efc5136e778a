"""The egress forwarder: inside the sandbox, the proxy's address the confined command is given.

Run inside bwrap as `python -I -S egress_forwarder.py SOCKET PORT -- COMMAND…` (egress.py builds
that line). It listens on 127.0.0.1:PORT in the sandbox's own network namespace, starts COMMAND
with its own stdin, stdout and stderr, copies every connection to the proxy's Unix socket and
back until COMMAND ends, then ends as COMMAND did. Plumbing only, with no say in what passes:
the proxy outside decides, and whatever runs in here may reach the socket directly anyway.

Standard library only, no imports of LevelCode: it runs in the sandbox, from a path that may be
all it can see of the package.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

CHUNK = 64 * 1024


def serve(listener: socket.socket, socket_path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=forward, args=(client, socket_path), daemon=True).start()


def forward(client: socket.socket, socket_path: str) -> None:
    with contextlib.closing(client):
        proxy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.closing(proxy):
            try:
                proxy.connect(socket_path)
            except OSError as exc:
                message = f"[sandbox] the egress proxy cannot be reached: {exc}"
                with contextlib.suppress(OSError):
                    os.write(2, (message + "\n").encode())
                    client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n")
                return
            back = threading.Thread(target=pump, args=(proxy, client), daemon=True)
            back.start()
            pump(client, proxy)
            back.join()


def pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            chunk = source.recv(CHUNK)
            if not chunk:
                break
            target.sendall(chunk)
    except OSError:
        for side in (source, target):
            with contextlib.suppress(OSError):
                side.shutdown(socket.SHUT_RDWR)
        return
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


def run(socket_path: str, port: int, command: list[str]) -> int:
    """Serve while `command` runs; its exit status (negative: the signal that ended it)."""
    listener = socket.create_server(("127.0.0.1", port))  # connections wait in its backlog
    started: list[subprocess.Popen[bytes]] = []
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda sig, _frame: pass_on(started, sig))
    try:  # started before any thread: a pre-exec hook must not run in a forked threaded process
        started.append(subprocess.Popen(command, preexec_fn=die_with_parent()))  # noqa: PLW1509
    except OSError as exc:
        os.write(2, f"[sandbox] could not start {command[0]}: {exc.strerror or exc}\n".encode())
        return 127
    threading.Thread(target=serve, args=(listener, socket_path), daemon=True).start()
    null = os.open(os.devnull, os.O_RDWR)  # the command's stdin and stdout are its own now
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    return started[0].wait()


def die_with_parent() -> Callable[[], None] | None:
    """A pre-exec hook that kills the command when this forwarder dies (as bwrap's
    --die-with-parent would have, had it started the command itself); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    pr_set_pdeathsig = 1
    parent = os.getpid()

    def hook() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the forwarder died before the hook ran
            os._exit(1)

    return hook


def pass_on(started: list[subprocess.Popen[bytes]], number: int) -> None:
    if not started:
        raise SystemExit(128 + number)
    with contextlib.suppress(OSError):
        started[0].send_signal(number)


def main(argv: list[str]) -> int:
    socket_path, port, *rest = argv
    command = rest[1:] if rest[:1] == ["--"] else rest
    status = run(socket_path, int(port), command)
    if status < 0:  # ended by a signal: end by the same one
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        return 128 - status
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
