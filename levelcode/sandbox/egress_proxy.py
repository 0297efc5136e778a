"""The egress proxy: runs a sandboxed command and, while it runs, is its only way out.

Run outside the sandbox as `python -I -S egress_proxy.py --socket-dir DIR [--listed HOST]…
[--public HOST]… --hint TEXT -- COMMAND…` (egress.py builds that line; COMMAND is bwrap). It
makes DIR (0700) with a Unix socket in it, starts COMMAND with its own stdin, stdout and stderr,
answers on the socket (egress_service.py) until COMMAND ends, then removes DIR and ends the way
COMMAND did (its exit status, or the same signal). Signals it gets are passed on to COMMAND.

This process sits on the start of every sandboxed server, so COMMAND is started first, with
what the standard library loads anyway; the rules and the protocol are imported while bwrap
sets the sandbox up (a connection waits in the socket's backlog meanwhile). Never writes to
stdout (a server's JSON-RPC goes there), never reads stdin.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence

SOCKET_NAME = "proxy.sock"
STALE_AFTER_SECONDS = 60.0
_PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def main(argv: Sequence[str]) -> None:
    """Run the command under the proxy, and end as it did (never returns)."""
    folder, listed, public, hint, command = parse_arguments(argv)
    listener = make_listener(folder)
    started: list[int] = []
    for number in _PASSED_ON:  # set before the command starts
        signal.signal(number, lambda sig, _frame: _pass_on(started, sig))
    status = 127
    try:
        started.append(os.posix_spawnp(command[0], command, os.environ))
        release_stdio()
        serve(listener, listed, public, hint)
        sweep_stale(os.path.dirname(folder))
        status = os.waitstatus_to_exitcode(os.waitpid(started[0], 0)[1])
    except OSError as exc:
        what = f"the egress proxy failed for {command[0]}" if started else f"could not start {command[0]}"
        os.write(2, f"[sandbox] {what}: {exc.strerror or exc}\n".encode())
    finally:
        listener.close()
        remove_folder(folder)
    end_like(status)


def serve(listener: socket.socket, listed: list[str], public: list[str], hint: str) -> None:
    """Answer on the socket from now on (the protocol is imported only here, see above)."""
    if __package__ in (None, ""):  # run as a script: the package beside it, after the stdlib
        sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from levelcode.sandbox.egress_service import serve_in_background

    serve_in_background(listener, listed, public, hint)


def parse_arguments(argv: Sequence[str]) -> tuple[str, list[str], list[str], str, list[str]]:
    """(folder, listed, public, hint, command); SystemExit with a message when they are wrong."""
    options: dict[str, list[str]] = {"--socket-dir": [], "--listed": [], "--public": [], "--hint": []}
    words = list(argv)
    while words and words[0] != "--":
        name = words.pop(0)
        if name not in options or not words:
            raise SystemExit(f"egress_proxy: unexpected {name!r}")
        options[name].append(words.pop(0))
    command = words[1:]
    if len(options["--socket-dir"]) != 1 or not command:
        raise SystemExit(
            "egress_proxy: usage: --socket-dir DIR [--listed H]… [--public H]… [--hint T] -- COMMAND…"
        )
    hint = options["--hint"][-1] if options["--hint"] else ""
    return options["--socket-dir"][0], options["--listed"], options["--public"], hint, command


def make_listener(folder: str | os.PathLike[str]) -> socket.socket:
    """A listening socket in `folder`, made here (0700). A folder left by a proxy that was killed
    is taken over; one whose proxy still answers is not."""
    folder = os.fspath(folder)
    if os.path.lexists(folder):
        if not is_stale(folder):
            raise SystemExit(f"egress_proxy: {folder} is in use by another proxy")
        remove_folder(folder)
    os.makedirs(os.path.dirname(folder), mode=0o700, exist_ok=True)
    os.mkdir(folder, 0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _in_folder(folder, lambda: listener.bind(SOCKET_NAME))
    listener.listen(64)
    return listener


def is_stale(folder: str | os.PathLike[str]) -> bool:
    """Whether nobody answers on the folder's socket any more."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            _in_folder(os.fspath(folder), lambda: probe.connect(SOCKET_NAME))
        except OSError:
            return True
    return False


def _in_folder(folder: str, action: Callable[[], None]) -> None:
    """`action()` with `folder` as the working directory: a socket is named from inside it, since
    a socket path is limited to 107 bytes and the state folder's may be longer."""
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(folder)
        action()
    finally:
        os.fchdir(here)
        os.close(here)


def sweep_stale(base: str) -> None:
    """Remove the folders of proxies that were killed before they could (SIGKILL): older than a
    minute, and nobody answering on their socket."""
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            folder = os.path.join(base, name)
            with contextlib.suppress(OSError):
                if time.time() - os.stat(folder).st_mtime > STALE_AFTER_SECONDS and is_stale(folder):
                    remove_folder(folder)


def remove_folder(folder: str) -> None:
    """The folder and what a proxy leaves in it (its socket)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _pass_on(started: list[int], number: int) -> None:
    """A signal for the proxy is for the command it runs (a group signal reaches both: once more
    does no harm); one that comes before the command has started ends the proxy as it would."""
    if not started:
        raise SystemExit(128 + number)
    with contextlib.suppress(OSError):
        os.kill(started[0], number)


def release_stdio() -> None:
    """Let go of the command's stdin and stdout: whoever reads them sees their end when the
    command's own end closes, not when this process ends."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def end_like(status: int) -> None:
    """Exit as the command did: its status, or the signal that ended it, raised again here. No
    interpreter teardown: nothing is buffered, and the command's end should not wait for ours."""
    if status < 0:
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP keep their default
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    os._exit(status)


if __name__ == "__main__":
    main(sys.argv[1:])
