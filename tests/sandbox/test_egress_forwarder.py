"""The forwarder as a real process, outside any sandbox (what it does with its command does not
depend on where it runs). Load-bearing direction: its command dies when it does (the
parent-death signal bwrap's --die-with-parent used to give), and it ends the way its command did,
so a server killed by a signal is reported as such. The second corpus: a command that cannot be
started is named, with the private /tmp as the reason when its path is under /tmp. And it relays
with nothing of LevelCode but its own folder in sight, as inside the sandbox: the relay beside it
(egress_relay.py) is loaded from there."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

from levelcode.sandbox.egress import FORWARDER_SCRIPT
from tests.support.http_servers import free_port
from tests.support.listener import receive_all

WAIT = 20.0
HOLD = "import sys; sys.stdout.write('ready'); sys.stdout.flush(); sys.stdin.read()"
PDEATHSIG = (
    "import ctypes, signal; n = ctypes.c_int(); "
    "ctypes.CDLL(None).prctl(2, ctypes.byref(n), 0, 0, 0); print(n.value)"
)


def forwarder(*command: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-I", "-S", str(FORWARDER_SCRIPT), "/nonexistent/proxy.sock", "0", "--", *command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=False)


def test_its_command_carries_the_parent_death_signal() -> None:
    done = forwarder(sys.executable, "-c", PDEATHSIG)
    assert done.stdout == f"{int(signal.SIGKILL)}\n"


def test_it_ends_as_its_command_did() -> None:
    assert forwarder(sys.executable, "-c", "raise SystemExit(7)").returncode == 7
    killed = forwarder(sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert killed.returncode == -signal.SIGTERM


def test_a_command_that_cannot_start_is_named() -> None:
    done = forwarder("/tmp/levelcode-no-such-program")
    assert done.returncode == 127
    assert done.stderr == (
        "[sandbox] could not start /tmp/levelcode-no-such-program: No such file or directory (the "
        "sandbox's /tmp is private: a program under /tmp is not in there)\n"
    )
    assert forwarder("no-such-program-anywhere").stderr.endswith("No such file or directory\n")


def test_it_relays_from_a_folder_that_holds_only_itself_and_the_relay(tmp_path: Path) -> None:
    """Run with -I -S from a copy of its folder holding only the two files, it takes a connection
    on its port to the proxy's socket and back: a request sent whole and half-closed, the
    answer."""
    lone = tmp_path / "lone"
    lone.mkdir()
    for name in ("egress_forwarder.py", "egress_relay.py"):
        shutil.copy(FORWARDER_SCRIPT.with_name(name), lone / name)
    port, request = free_port(), b"x" * 2**20
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as proxy:
        proxy.bind(str(tmp_path / "proxy.sock"))
        proxy.listen(1)
        proxy.settimeout(WAIT)
        argv = [sys.executable, "-I", "-S", str(lone / "egress_forwarder.py"), str(tmp_path / "proxy.sock")]
        running = subprocess.Popen(
            [*argv, str(port), "--", sys.executable, "-c", HOLD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert running.stdout is not None
        assert running.stdout.read(5) == b"ready"  # it listens by now
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as client:
            client.sendall(request)
            client.shutdown(socket.SHUT_WR)
            conn, _ = proxy.accept()
            with conn:
                conn.settimeout(WAIT)
                conn.sendall(str(len(receive_all(conn))).encode())
            assert receive_all(client) == str(len(request)).encode()
        _, err = running.communicate(b"", timeout=WAIT)
    assert (running.returncode, err) == (0, b"")
