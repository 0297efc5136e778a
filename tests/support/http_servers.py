"""Real remote MCP servers for tests, as subprocesses listening on 127.0.0.1: server-everything in
its Streamable HTTP and SSE modes, the official Python SDK's server (tests/servers/
sdk_http_server.py) and a FastMCP one (tests/servers/fastmcp_http_server.py). Each can be killed
and started again on the same port, as a restart looks."""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tests.support.processes import wait_until
from tests.support.servers import ROOT, node_server

SDK_SERVER = ROOT / "tests" / "servers" / "sdk_http_server.py"
FASTMCP_SERVER = ROOT / "tests" / "servers" / "fastmcp_http_server.py"


# Ports handed to servers that bind them later. Not the kernel's own pick (port 0): that comes
# from the ephemeral range, where any other test's listener or connection in another worker may be
# given the same port between this probe and the server's bind — and a test then talks to a
# stranger (a 404 from another worker's authorization server, seen under load). These come from
# below the ephemeral range, a block of its own for each worker, so nothing else is handed them.
PORTS_PER_WORKER = 1000
_handed = itertools.count(random.randrange(PORTS_PER_WORKER))  # two checkouts' suites rarely meet


def free_port() -> int:
    first = _port_block()
    for _ in range(PORTS_PER_WORKER):
        port = first + next(_handed) % PORTS_PER_WORKER
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            return port
    raise AssertionError(f"no free port in {first}..{first + PORTS_PER_WORKER - 1}")


def _port_block() -> int:
    """This worker's first port: blocks of PORTS_PER_WORKER below the ephemeral range."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")
    low = int(ephemeral.read_text().split()[0]) if ephemeral.exists() else 32768
    blocks = max(1, (low - 10_000) // PORTS_PER_WORKER)
    return 10_000 + (int(worker) if worker.isdigit() else 0) % blocks * PORTS_PER_WORKER


def listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
        return True
    return False


class ServerProcess:
    def __init__(
        self, argv: Sequence[str], port: int, path: str, env: Mapping[str, str] | None = None
    ) -> None:
        self.argv, self.port, self.path = list(argv), port, path
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def start(self) -> ServerProcess:
        self.process = subprocess.Popen(
            self.argv,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if not wait_until(lambda: listening(self.port) or self.process.poll() is not None, within=30):
            raise AssertionError(f"{self.argv[0]} did not listen on {self.port} within 30 s")
        if self.process.poll() is not None:
            raise AssertionError(f"{self.argv} exited with {self.process.returncode}")
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        assert wait_until(lambda: not listening(self.port), within=10)

    def restart(self) -> None:
        self.kill()
        self.start()


@contextlib.contextmanager
def running(server: ServerProcess) -> Iterator[ServerProcess]:
    server.start()
    try:
        yield server
    finally:
        server.kill()


def everything(mode: str) -> ServerProcess:
    """server-everything: mode "streamableHttp" (endpoint /mcp) or "sse" (endpoint /sse)."""
    port = free_port()
    path = "/mcp" if mode == "streamableHttp" else "/sse"
    return ServerProcess([node_server("mcp-server-everything"), mode], port, path, {"PORT": str(port)})


def sdk_server(*flags: str, env: Mapping[str, str] | None = None) -> ServerProcess:
    """The official SDK's server: flags --sse, --json, --stateless (see tests/servers/sdk_http_server.py)."""
    port = free_port()
    path = "/sse" if "--sse" in flags else "/mcp"
    return ServerProcess([sys.executable, str(SDK_SERVER), str(port), *flags], port, path, env)


def fastmcp_server(*flags: str) -> ServerProcess:
    """A FastMCP server (tests/servers/fastmcp_http_server.py): flag --sse for HTTP+SSE."""
    port = free_port()
    path = "/sse" if "--sse" in flags else "/mcp"
    return ServerProcess([sys.executable, str(FASTMCP_SERVER), str(port), *flags], port, path)
