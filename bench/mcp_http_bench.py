"""Remote (Streamable HTTP) MCP benchmark: which HTTP transport LevelCode should use (DESIGN D1).

    uv run python bench/mcp_http_bench.py [--quick]

Against local servers on 127.0.0.1 — server-everything in its Streamable HTTP mode (2025-11-25,
answers as event streams) and a server built with the official Python SDK (2026-07-28, JSON
answers) — in one run, it prints:
  * import cost in a fresh process (median): the SDK's streamable-HTTP client transport, the SDK's
    whole client, and LevelCode's own transport on httpx2;
  * connect+list (median) and per-call latency (p50, p95) for: the SDK's own client end to end;
    LevelCode's session on (a) the SDK's transport (an adapter below feeds our session from its
    streams); LevelCode on (b) its own transport (levelcode/mcp/http);
  * the whole-process time of `levelcode mcp list` with one remote server configured;
  * OAuth (which sign-in code LevelCode should use): the import cost of the SDK's OAuth
    (`mcp.client.auth`) and of LevelCode's own (levelcode/mcp/http/oauth), and per-call latency
    with a bearer token to the SDK's server as an OAuth resource (tests/servers/sdk_http_server.py
    --oauth, tokens from tests/fakes/oauth_server.py): the SDK's client with its
    OAuthClientProvider beside LevelCode signed in, sequential and 16 calls at once.
The machine is shared and noisy: compare ratios within one run, and run twice before believing one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from levelcode.cli.aio import event_loop_factory  # noqa: E402
from levelcode.core.errors import TransportError  # noqa: E402
from levelcode.mcp.config.specs import HttpServerSpec, Provenance  # noqa: E402
from levelcode.mcp.http.request_headers import standard_headers  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import McpConnection, connect  # noqa: E402
from levelcode.mcp.protocol import jsonrpc  # noqa: E402
from levelcode.mcp.protocol.handshake import negotiate_in_turn  # noqa: E402
from levelcode.mcp.protocol.session import McpSession  # noqa: E402
from levelcode.mcp.protocol.transport import MessageSink  # noqa: E402

USER = Provenance("user", "bench")
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
SDK_SERVER = ROOT / "tests" / "servers" / "sdk_http_server.py"
WARMUP_CALLS = 50


# --- servers on 127.0.0.1 ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, process: subprocess.Popen[bytes], within: float = 30) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port} after {within} s")


@contextlib.contextmanager
def servers() -> Iterator[dict[str, str]]:
    everything_port, sdk_port = free_port(), free_port()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    everything = subprocess.Popen(
        [str(EVERYTHING), "streamableHttp"], env={**os.environ, "PORT": str(everything_port)}, **quiet
    )
    sdk = subprocess.Popen([sys.executable, str(SDK_SERVER), str(sdk_port), "--json"], **quiet)
    try:
        wait_listening(everything_port, everything)
        wait_listening(sdk_port, sdk)
        yield {
            "server-everything (2025-11-25, SSE answers)": f"http://127.0.0.1:{everything_port}/mcp",
            "SDK MCPServer (2026-07-28, JSON answers)": f"http://127.0.0.1:{sdk_port}/mcp",
        }
    finally:
        for process in (everything, sdk):
            process.terminate()
            process.wait(timeout=10)


# --- import cost -----------------------------------------------------------------------------------------

IMPORTS = {
    "stdio path only (levelcode.mcp.live.connection)": "import levelcode.mcp.live.connection",
    "(a) SDK transport (mcp.client.streamable_http)": "import mcp.client.streamable_http",
    "    SDK whole client (mcp.Client + transport)": "import mcp; from mcp.client.streamable_http import streamable_http_client",
    "(b) LevelCode's own (levelcode.mcp.http.streamable)": "import levelcode.mcp.http.streamable",
    "OAuth: the SDK's (mcp.client.auth)": "import mcp.client.auth",
    "OAuth: LevelCode's own (levelcode.mcp.http.oauth)": "import levelcode.mcp.http.oauth.authorizer",
}


def import_cost(statement: str, runs: int) -> tuple[float, int]:
    code = (
        "import sys, time; before = set(sys.modules); began = time.perf_counter();"
        f"{statement};"
        "print(time.perf_counter() - began, len(set(sys.modules) - before))"
    )
    samples, modules = [], 0
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
        )
        seconds, count = out.stdout.split()
        samples.append(float(seconds))
        modules = int(count)
    return statistics.median(samples), modules


# --- (a) LevelCode's session on the SDK's transport --------------------------------------------------------


class SdkStreamTransport:
    """Our Transport on the SDK's `streamable_http_client`: a runner task owns its context (anyio
    scopes must close in the task that opened them); a writer task turns our synchronous `send`
    into the SDK's async stream writes; a reader classifies what arrives for our session."""

    def __init__(self, server: str, url: str) -> None:
        self.server_name, self.url = server, url
        self._queue: asyncio.Queue[Mapping[str, object]] = asyncio.Queue()
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._version: str | None = None

    @property
    def server(self) -> str:
        return self.server_name

    async def open(self, sink: MessageSink) -> None:
        ready = asyncio.Event()
        self._runner = asyncio.ensure_future(self._run(sink, ready))
        await ready.wait()

    async def _run(self, sink: MessageSink, ready: asyncio.Event) -> None:
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(self.url) as (read, write):
            ready.set()
            tasks = [asyncio.ensure_future(self._read(read, sink)), asyncio.ensure_future(self._write(write))]
            await self._stop.wait()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _read(self, read: Any, sink: MessageSink) -> None:
        async for item in read:
            if isinstance(item, Exception):
                continue
            payload = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            result = payload.get("result")
            if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
                self._version = result["protocolVersion"]
            sink.on_message(jsonrpc.classify(payload))

    async def _write(self, write: Any) -> None:
        from mcp.shared.message import ClientMessageMetadata, SessionMessage
        from mcp_types import jsonrpc_message_adapter

        while True:
            message = await self._queue.get()
            params = message.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
            headers = {"mcp-protocol-version": version or self._version} if (version or self._version) else {}
            headers.update(standard_headers(message))
            model = jsonrpc_message_adapter.validate_python(dict(message), by_name=False)
            await write.send(SessionMessage(model, metadata=ClientMessageMetadata(headers=headers)))

    def send(self, message: Mapping[str, object]) -> None:
        if self._stop.is_set():
            raise TransportError("closed", server=self.server)
        self._queue.put_nowait(message)

    async def close(self) -> None:
        self._stop.set()
        if self._runner is not None:
            await asyncio.gather(self._runner, return_exceptions=True)

    def diagnostics(self) -> tuple[str, ...]:
        return ()


async def connect_on_sdk(url: str) -> McpConnection:
    spec = HttpServerSpec("bench", url, USER)

    async def open_session() -> McpSession:
        session = McpSession(SdkStreamTransport("bench", url))
        await session.open()
        return session

    session, info = await negotiate_in_turn(open_session, None)
    connection = McpConnection(spec, session, info, ConnectOptions(workspace=ROOT))
    await connection.list_tools()
    return connection


async def connect_own(url: str) -> McpConnection:
    return await connect(HttpServerSpec("bench", url, USER), ConnectOptions(workspace=ROOT))


# --- measuring -------------------------------------------------------------------------------------------

Connector = Callable[[str], Awaitable[Any]]


async def levelcode_rows(
    url: str, connector: Connector, connects: int, calls: int
) -> tuple[float, list[float]]:
    connect_times = []
    for _ in range(connects):
        began = time.perf_counter()
        connection = await connector(url)
        connect_times.append(time.perf_counter() - began)
        await connection.close()
    connection = await connector(url)
    for _ in range(WARMUP_CALLS):
        await connection.call_tool("echo", {"message": "ping"})
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        rendered = await connection.call_tool("echo", {"message": "ping"})
        times.append(time.perf_counter() - began)
        assert not rendered.is_error, rendered.text
    await connection.close()
    return statistics.median(connect_times), times


async def sdk_client_rows(url: str, connects: int, calls: int) -> tuple[float, list[float]]:
    from mcp import Client

    connect_times = []
    for _ in range(connects):
        began = time.perf_counter()
        async with Client(url) as client:
            await client.list_tools()
            connect_times.append(time.perf_counter() - began)
    times = []
    async with Client(url) as client:
        await client.list_tools()
        for _ in range(WARMUP_CALLS):
            await client.call_tool("echo", {"message": "ping"})
        for _ in range(calls):
            began = time.perf_counter()
            await client.call_tool("echo", {"message": "ping"})
            times.append(time.perf_counter() - began)
    return statistics.median(connect_times), times


def whole_process_list(url: str, runs: int) -> float:
    samples = []
    with tempfile.TemporaryDirectory() as home:
        settings = {"mcpServers": {"remote": {"url": url}}}
        Path(home, "settings.json").write_text(json.dumps(settings))
        env = {"PATH": os.environ["PATH"], "HOME": home, "LEVELCODE_HOME": home, "LANG": "C.UTF-8"}
        for _ in range(runs):
            began = time.perf_counter()
            done = subprocess.run(
                [str(Path(sys.executable).parent / "levelcode"), "mcp", "list"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            samples.append(time.perf_counter() - began)
            assert done.returncode == 0 and "remote · running" in done.stdout, done.stdout + done.stderr
    return statistics.median(samples)


# --- OAuth: a bearer token on every call ----------------------------------------------------------------


@contextlib.contextmanager
def oauth_server() -> Iterator[tuple[str, Any]]:
    """The SDK's server as an OAuth resource, and the authorization server it trusts."""
    from tests.fakes.oauth_server import authorization_server

    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        process = subprocess.Popen(
            [sys.executable, str(SDK_SERVER), str(port), "--oauth", auth.issuer],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_listening(port, process)
            yield f"http://127.0.0.1:{port}/mcp", auth
        finally:
            process.kill()
            process.wait()


async def signed_in_store(url: str, store: Path) -> dict[str, Any]:
    """Sign LevelCode in once (the test browser approves); the tokens, for the SDK's client too."""
    from levelcode.mcp.http.oauth.store import STORE_FILE
    from levelcode.mcp.protocol.sign_in import SignIn
    from tests.support.browser import Browser

    options = ConnectOptions(workspace=ROOT, sign_in=SignIn(store_dir=store, user_agent=Browser()))
    connection = await connect(HttpServerSpec("bench", url, USER), options)
    await connection.close()
    record = next(iter(json.loads((store / STORE_FILE).read_text())["servers"].values()))["record"]
    return dict(record["tokens"])


async def oauth_levelcode_rows(url: str, store: Path, calls: int) -> tuple[list[float], float]:
    from levelcode.mcp.protocol.sign_in import SignIn

    options = ConnectOptions(workspace=ROOT, sign_in=SignIn(store_dir=store))
    connection = await connect(HttpServerSpec("bench", url, USER), options)
    try:

        async def call() -> None:
            rendered = await connection.call_tool("echo", {"message": "ping"})
            assert not rendered.is_error, rendered.text

        return await timed_calls(call, calls)
    finally:
        await connection.close()


async def oauth_sdk_rows(url: str, tokens: Mapping[str, Any], calls: int) -> tuple[list[float], float]:
    from mcp import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

    class Stored:
        async def get_tokens(self) -> OAuthToken:
            return OAuthToken(access_token=tokens["access_token"], refresh_token=tokens["refresh_token"])

        async def set_tokens(self, _tokens: OAuthToken) -> None:
            pass

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return None

        async def set_client_info(self, _info: OAuthClientInformationFull) -> None:
            pass

    metadata = OAuthClientMetadata(redirect_uris=["http://127.0.0.1:1/callback"])  # type: ignore[list-item]
    provider = OAuthClientProvider(url, metadata, Stored())  # type: ignore[arg-type]
    http = create_mcp_http_client(auth=provider)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:  # type: ignore[arg-type]

        async def call() -> None:
            await client.call_tool("echo", {"message": "ping"})

        return await timed_calls(call, calls)


async def timed_calls(call: Callable[[], Awaitable[None]], calls: int) -> tuple[list[float], float]:
    """Sequential per-call times after the warm-up, and the wall time of 16 calls at once (median of 5)."""
    for _ in range(WARMUP_CALLS):
        await call()
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        await call()
        times.append(time.perf_counter() - began)
    bursts = []
    for _ in range(5):
        began = time.perf_counter()
        await asyncio.gather(*(call() for _ in range(16)))
        bursts.append(time.perf_counter() - began)
    return times, statistics.median(bursts)


def oauth_report(calls: int) -> None:
    with oauth_server() as (url, _auth), tempfile.TemporaryDirectory() as store:
        run = asyncio.Runner(loop_factory=event_loop_factory())
        with run:
            tokens = run.run(signed_in_store(url, Path(store)))
            rows = {
                "SDK's client + its OAuthClientProvider": run.run(oauth_sdk_rows(url, tokens, calls)),
                "LevelCode signed in (its own OAuth)": run.run(oauth_levelcode_rows(url, Path(store), calls)),
            }
    own = statistics.median(rows["LevelCode signed in (its own OAuth)"][0])
    print(f"\nOAuth: the SDK's server as a protected resource, bearer token on each of {calls} echo calls")
    for label, (times, burst) in rows.items():
        print(
            f"  {label:40} per call p50 {ms(p(times, 0.5))}  p95 {ms(p(times, 0.95))}"
            f"  ({statistics.median(times) / own:.2f}x)   16 at once {ms(burst)}"
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def p(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import_runs, connects, calls = (3, 3, 100) if args.quick else (7, 10, 400)

    print(f"import cost, fresh process, median of {import_runs}")
    for label, statement in IMPORTS.items():
        seconds, modules = import_cost(statement, import_runs)
        print(f"  {label:55} {ms(seconds)}  {modules:4d} modules")

    with servers() as urls:
        for server, url in urls.items():
            print(
                f"\n{server}: connect+list median of {connects}; {calls} echo calls after {WARMUP_CALLS} warm-up"
            )
            rows: dict[str, tuple[float, list[float]]] = {}
            run = asyncio.Runner(loop_factory=event_loop_factory())
            with run:
                rows["SDK's own client (mcp.Client)"] = run.run(sdk_client_rows(url, connects, calls))
                rows["LevelCode on (a) the SDK transport"] = run.run(
                    levelcode_rows(url, connect_on_sdk, connects, calls)
                )
                rows["LevelCode on (b) its own transport"] = run.run(
                    levelcode_rows(url, connect_own, connects, calls)
                )
            own = statistics.median(rows["LevelCode on (b) its own transport"][1])
            for label, (connect_time, times) in rows.items():
                ratio = statistics.median(times) / own
                print(
                    f"  {label:38} connect+list {ms(connect_time)}   per call p50 {ms(p(times, 0.5))}"
                    f"  p95 {ms(p(times, 0.95))}  ({ratio:.2f}x of (b))"
                )
        url = next(iter(urls.values()))
        runs = 3 if args.quick else 5
        print(
            f"\nwhole process `levelcode mcp list`, one remote server (server-everything), median of {runs}:"
            f" {ms(whole_process_list(url, runs))}"
        )
    oauth_report(calls)


if __name__ == "__main__":
    main()
