"""What running a long call as a task costs: the same work as a plain call and as a task (the
2026-07-28 tasks extension), on the same server, side by side in one run.

    uv run python bench/task_bench.py [--quick] [--rounds N] [--seconds S] [--poll-ms MS]

The server is tests/servers/task_server.py (written from the specification): `report` works S
seconds and answers; `task_report` does the same work as a task, which LevelCode follows with
`tasks/get` at the server's suggested interval (`--poll-ms`, default 100). Over Streamable HTTP
(127.0.0.1) and stdio, each for a long call (S seconds) and a short one (50 ms, under one poll
interval), the two kinds interleaved round by round. It prints medians, the task's overhead in ms and
the ratio. A task's result is seen at the first poll after it is ready, so the long call's overhead
is expected to be up to one poll interval plus a round trip. The machine is shared and noisy:
compare within one run, and run twice before believing one.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from levelcode.mcp.config.specs import HttpServerSpec, Provenance, ServerSpec, StdioServerSpec  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import McpConnection, connect  # noqa: E402
from tests.support.http_servers import ServerProcess, free_port, running  # noqa: E402

USER = Provenance("user", "bench")
SERVER = ROOT / "tests" / "servers" / "task_server.py"
SHORT_SECONDS = 0.05  # shorter than one poll interval: what the polling granularity costs


async def timed(connection: McpConnection, tool: str, seconds: float) -> float:
    began = time.perf_counter()
    outcome = await connection.call_tool(tool, {"seconds": seconds, "steps": 4})
    took = time.perf_counter() - began
    if outcome.is_error:
        raise SystemExit(f"{tool} failed: {outcome.text}")
    return took


async def measure(spec: ServerSpec, rounds: int, seconds: float) -> dict[str, list[float]]:
    options = ConnectOptions(workspace=Path.cwd(), startup_timeout=30, call_timeout=max(60, seconds * 4))
    connection = await connect(spec, options)
    times: dict[str, list[float]] = {"plain": [], "task": [], "plain short": [], "task short": []}
    try:
        for _ in range(2):  # warm-up: connections, imports, the server's first answers
            await timed(connection, "report", 0)
            await timed(connection, "task_report", 0)
        for _ in range(rounds):
            times["plain"].append(await timed(connection, "report", seconds))
            times["task"].append(await timed(connection, "task_report", seconds))
            times["plain short"].append(await timed(connection, "report", SHORT_SECONDS))
            times["task short"].append(await timed(connection, "task_report", SHORT_SECONDS))
    finally:
        await connection.close()
    return times


def report(transport: str, seconds: float, times: dict[str, list[float]]) -> None:
    pairs = (
        ("plain", "task", f"{seconds:g} s call"),
        ("plain short", "task short", f"{SHORT_SECONDS:g} s call"),
    )
    for plain, task, what in pairs:
        p, t = statistics.median(times[plain]) * 1000, statistics.median(times[task]) * 1000
        print(
            f"{transport:6} {what:11}  plain {p:8.1f} ms   task {t:8.1f} ms   "
            f"overhead {t - p:+7.1f} ms   ratio {t / p:5.2f}x   (n={len(times[plain])})"
        )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="3 rounds of 0.5 s calls")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--poll-ms", type=int, default=100)
    args = parser.parse_args()
    rounds, seconds = (3, 0.5) if args.quick else (args.rounds, args.seconds)
    flags = ("--poll-ms", str(args.poll_ms))
    print(f"task_server pollIntervalMs={args.poll_ms}; medians of {rounds} rounds, interleaved")
    port = free_port()
    with running(ServerProcess([sys.executable, str(SERVER), str(port), *flags], port, "/mcp")) as server:
        http = HttpServerSpec(name="tasks", url=server.url, provenance=USER)
        report("http", seconds, await measure(http, rounds, seconds))
    stdio = StdioServerSpec(
        name="tasks", command=sys.executable, args=(str(SERVER), "--stdio", *flags), provenance=USER
    )
    report("stdio", seconds, await measure(stdio, rounds, seconds))


if __name__ == "__main__":
    asyncio.run(main())
