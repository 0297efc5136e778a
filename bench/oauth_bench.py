"""What OAuth costs a call: the same MCP server (bench/oauth_http_server.py, one process on
127.0.0.1) at three addresses — no authorization, a bearer token, a DPoP-bound token with a fresh
proof per request — each called through LevelCode's own connection, signed in beforehand against
the test authorization server (tests/fakes/oauth_server.py).

    uv run python bench/oauth_bench.py [--quick]

Rounds interleave the three (a batch of calls on each in turn), so a noisy shared machine weighs
on all of them alike; it prints per-call p50 and p95 and each p50's ratio to the unauthenticated
one. The server checks a token once (introspection, then remembered), so what differs per call
is what the client does: the renewal check before each request, the Authorization header, and
for DPoP signing a proof (ES256) that the server reads.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.mcp_http_bench import free_port, wait_listening  # noqa: E402
from levelcode.cli.aio import event_loop_factory  # noqa: E402
from levelcode.mcp.config.specs import HttpServerSpec, Provenance  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import McpConnection, connect  # noqa: E402
from levelcode.mcp.protocol.sign_in import SignIn  # noqa: E402
from tests.fakes.oauth_server import authorization_server  # noqa: E402
from tests.support.browser import Browser  # noqa: E402

SERVER = ROOT / "bench" / "oauth_http_server.py"
KINDS = ("open", "bearer", "dpop")
WARMUP = 50


@contextmanager
def bench_server() -> Iterator[str]:
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    with (
        authorization_server(resource=f"{origin}/bearer/mcp", scopes=("mcp",)) as bearer,
        authorization_server(resource=f"{origin}/dpop/mcp", scopes=("mcp",)) as dpop,
    ):
        process = subprocess.Popen([sys.executable, str(SERVER), str(port), bearer.issuer, dpop.issuer])
        try:
            wait_listening(port, process)  # type: ignore[arg-type]
            yield origin
        finally:
            process.kill()
            process.wait()


async def connections(origin: str, store: Path) -> dict[str, McpConnection]:
    """Signed in (the test browser says yes) where a sign-in is asked for."""
    options = ConnectOptions(workspace=ROOT, sign_in=SignIn(store_dir=store, user_agent=Browser()))
    opened = {}
    for kind in KINDS:
        spec = HttpServerSpec(kind, f"{origin}/{kind}/mcp", Provenance("user", "bench"))
        opened[kind] = await connect(spec, options, hint="legacy")
    return opened


async def measure(opened: dict[str, McpConnection], rounds: int, batch: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for connection in opened.values():
        for _ in range(WARMUP):
            await connection.call_tool("echo", {"message": "warm"})
    for _ in range(rounds):
        for kind, connection in opened.items():
            for _ in range(batch):
                began = time.perf_counter()
                rendered = await connection.call_tool("echo", {"message": "ping"})
                times[kind].append(time.perf_counter() - began)
                assert not rendered.is_error, rendered.text
    return times


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds, batch = (5, 20) if args.quick else (20, 25)
    with (
        bench_server() as origin,
        tempfile.TemporaryDirectory() as store,
        asyncio.Runner(loop_factory=event_loop_factory()) as run,
    ):
        opened = run.run(connections(origin, Path(store)))
        try:
            times = run.run(measure(opened, rounds, batch))
        finally:
            for connection in opened.values():
                run.run(connection.close())
    base = statistics.median(times["open"])
    print(
        f"one server, three addresses; {rounds} rounds x {batch} echo calls each, interleaved, after {WARMUP} warm-up"
    )
    labels = {"open": "unauthenticated", "bearer": "OAuth, bearer token", "dpop": "OAuth, DPoP token + proof"}
    for kind in KINDS:
        median = statistics.median(times[kind])
        print(
            f"  {labels[kind]:28} p50 {median * 1000:7.3f} ms  p95 {p(times[kind], 0.95) * 1000:7.3f} ms"
            f"  ({median / base:.2f}x of unauthenticated)"
        )


if __name__ == "__main__":
    main()
