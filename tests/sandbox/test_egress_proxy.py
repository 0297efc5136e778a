"""The egress proxy as a real process on a real socket, with real upstream listeners (no sandbox:
what the proxy decides does not depend on who asks). Load-bearing direction: a tunnel or a
request to a host off the list, or to a default/wildcard entry that resolves to this machine,
never reaches the listener, and each refusal leaves one line on stderr naming the host; the
proxy leaves no folder, socket or process behind, and ends the way its command did. The second
corpus: a listed host is reached by a tunnel and by a plain request, rewritten for the server.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from levelcode.sandbox.egress import EgressRoute, proxy_argv
from levelcode.sandbox.egress_proxy import SOCKET_NAME, is_stale, make_listener
from levelcode.sandbox.egress_rules import NOT_LISTED, EgressRules
from tests.support.listener import Listener, receive_all

WAIT = 20.0
HOLD = "import sys; sys.stdout.write('command output'); sys.stdout.flush(); sys.stdin.read()"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Where the proxy makes its socket's folder (no sandbox here, so /tmp will do)."""
    return tmp_path / "egress" / "proxy-1"


class Running:
    def __init__(
        self, folder: Path, listed: Sequence[str], public: Sequence[str] = (), command: str = HOLD
    ) -> None:
        route = EgressRoute(folder, EgressRules.from_texts(listed, public), 'add "{host}"')
        argv = proxy_argv(route, [sys.executable, "-c", command])
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.socket = folder / SOCKET_NAME
        self.folder = folder
        self._wait_for_socket()

    def _wait_for_socket(self) -> None:
        # the command writes its output once it runs, and the proxy starts it only once it listens
        assert self.process.stdout is not None
        assert os.read(self.process.stdout.fileno(), 64) == b"command output"

    def ask(self, request: bytes) -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(WAIT)
            client.connect(str(self.socket))
            client.sendall(request)
            return receive_all(client)

    def end(self) -> tuple[int, str]:
        _, err = self.process.communicate(b"", timeout=WAIT)
        return self.process.returncode, err.decode()


def test_a_listed_host_is_reached_by_a_tunnel(folder: Path) -> None:
    with Listener() as listener:
        proxy = Running(folder, [f"127.0.0.1:{listener.port}"])
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(WAIT)
            client.connect(str(proxy.socket))
            client.sendall(f"CONNECT 127.0.0.1:{listener.port} HTTP/1.1\r\n\r\n".encode())
            assert client.recv(100) == b"HTTP/1.1 200 Connection established\r\n\r\n"
            client.sendall(b"GET /through HTTP/1.1\r\nHost: x\r\n\r\n")
            assert receive_all(client).endswith(b"\r\n\r\nok")
        assert b"GET /through HTTP/1.1" in listener.received()
        code, err = proxy.end()
    assert (code, err) == (0, "")


def test_a_plain_request_is_rewritten_for_the_server(folder: Path) -> None:
    with Listener() as listener:
        proxy = Running(folder, [f"127.0.0.1:{listener.port}"])
        request = (
            f"GET http://127.0.0.1:{listener.port}/pkg?v=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\n\r\n"
        )
        assert proxy.ask(request.encode()).endswith(b"ok")
        received = listener.received()
        proxy.end()
    assert b"GET /pkg?v=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" in received
    assert b"Proxy-" not in received


def test_a_host_off_the_list_is_refused_with_one_line(folder: Path) -> None:
    with Listener() as listener, Listener() as other:
        proxy = Running(folder, [f"127.0.0.1:{listener.port}"])
        for _ in range(2):
            answer = proxy.ask(f"CONNECT 127.0.0.1:{other.port} HTTP/1.1\r\n\r\n".encode())
            assert answer.startswith(b"HTTP/1.1 403 Forbidden\r\n")
            assert b"not on the network list" in answer
        answer = proxy.ask(f"GET http://localhost:{listener.port}/ HTTP/1.1\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 403")  # the same machine, by another name: not listed
        assert other.received() == b""
        assert listener.received() == b""
        code, err = proxy.end()
    assert code == 0
    assert err.splitlines() == [
        f"[sandbox] refused a connection to 127.0.0.1:{other.port}: {NOT_LISTED}; "
        f'add "127.0.0.1:{other.port}"',
        f"[sandbox] refused a connection to localhost:{listener.port}: {NOT_LISTED}; "
        f'add "localhost:{listener.port}"',
    ]


def test_a_default_entry_never_reaches_this_machine(folder: Path) -> None:
    """`localhost` as a default (public-only) entry resolves to 127.0.0.1: refused, the listener
    untouched; listed by the user, the same name is reached."""
    with Listener() as listener:
        proxy = Running(folder, [], [f"localhost:{listener.port}"])
        answer = proxy.ask(f"CONNECT localhost:{listener.port} HTTP/1.1\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 403")
        assert listener.received() == b""
        _, err = proxy.end()
        assert "it resolves only to private or loopback addresses" in err
        proxy = Running(folder, [f"localhost:{listener.port}"])
        answer = proxy.ask(f"GET http://localhost:{listener.port}/ HTTP/1.1\r\n\r\n".encode())
        assert answer.endswith(b"ok")
        proxy.end()


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"nonsense\r\n\r\n",
        b"GET /relative HTTP/1.1\r\n\r\n",
        b"GET https://example.com/ HTTP/1.1\r\n\r\n",
        b"CONNECT example.com:99999 HTTP/1.1\r\n\r\n",
        b"GET http://example.com:99999/ HTTP/1.1\r\n\r\n",
        b"GET http://example.com:http/ HTTP/1.1\r\n\r\n",
        b"GET http://x/ HTTP/2\r\n\r\n",
    ],
)
def test_what_is_not_a_proxy_request_gets_400(folder: Path, request_bytes: bytes) -> None:
    proxy = Running(folder, ["example.com"])
    assert proxy.ask(request_bytes).startswith(b"HTTP/1.1 400")
    proxy.end()


def test_it_leaves_nothing_and_ends_as_its_command_did(folder: Path) -> None:
    proxy = Running(folder, [], command=HOLD + "; sys.exit(7)")
    assert proxy.socket.exists()
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    code, _ = proxy.end()
    assert code == 7
    assert not folder.exists()
    killed = Running(folder, [], command=HOLD + "; import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    code, _ = killed.end()
    assert code == -signal.SIGTERM
    assert not folder.exists()


def test_a_signal_for_the_proxy_is_passed_to_its_command(folder: Path) -> None:
    proxy = Running(folder, [])
    proxy.process.send_signal(signal.SIGTERM)  # the proxy alone, not its group
    proxy.process.wait(timeout=WAIT)  # stdin stays open: only the signal can end the command
    for pipe in (proxy.process.stdin, proxy.process.stdout, proxy.process.stderr):
        assert pipe is not None
        pipe.close()
    assert proxy.process.returncode == -signal.SIGTERM
    assert not folder.exists()
    with contextlib.suppress(ProcessLookupError):  # the group is empty: the command ended too
        os.killpg(proxy.process.pid, 0)
        pytest.fail("a process of the proxy's group still runs")


def test_a_folder_left_by_a_killed_proxy_is_taken_over(folder: Path) -> None:
    stale = make_listener(folder)
    assert not is_stale(folder)
    with pytest.raises(SystemExit, match="in use by another proxy"):
        make_listener(folder)
    stale.close()  # as a SIGKILL would: the socket file stays, nobody answers
    assert (folder / SOCKET_NAME).exists()
    assert is_stale(folder)
    make_listener(folder).close()


def test_it_never_writes_to_its_commands_stdout(folder: Path) -> None:
    proxy = Running(folder, [])
    proxy.ask(b"CONNECT nowhere.example:443 HTTP/1.1\r\n\r\n")
    out, err = proxy.process.communicate(b"", timeout=WAIT)
    assert out == b""  # what the command wrote was read above; nothing else came
    assert "nowhere.example" in err.decode()


def test_a_new_proxy_sweeps_the_folders_of_killed_ones(folder: Path) -> None:
    """A proxy killed with SIGKILL leaves its folder; the next one removes it once it is a
    minute old and nobody answers there — not a folder whose proxy still answers."""
    dead, alive = folder.parent / "dead", folder.parent / "alive"
    make_listener(dead).close()
    running = make_listener(alive)
    for old in (dead, alive):
        os.utime(old, (0, 0))
    proxy = Running(folder, [])
    proxy.end()
    assert not dead.exists()
    assert alive.exists()
    running.close()


def test_a_tunnel_may_stay_idle_longer_than_the_connect_timeout(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream (server-sent events, a long poll) may say nothing for a while: the tunnel stays."""
    import levelcode.sandbox.egress_service as service

    with socket.create_server(("127.0.0.1", 0)) as upstream:
        port = upstream.getsockname()[1]
        monkeypatch.setattr(service, "CONNECT_TIMEOUT_SECONDS", 0.2)
        proxy = service.EgressProxy(EgressRules.from_texts([f"127.0.0.1:{port}"], []), "")
        tunnel = proxy.connect("127.0.0.1", port)
        server_side, _ = upstream.accept()
        with tunnel, server_side:
            assert tunnel.gettimeout() is None
            server_side.sendall(b"late")
            assert tunnel.recv(10) == b"late"
