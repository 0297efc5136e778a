"""MCP client benchmark: LevelCode's own stdio client beside the official SDK's client and a minimal
direct newline-JSON client (the floor), against the same servers, in one run.

    uv run python bench/mcp_bench.py [--quick] [--calls-only]

Prints medians and ratios for: connect+list, per-call latency (p50/p95) and calls/s, five servers
connected concurrently vs one after another, and the whole-process time of `levelcode mcp list`
with one server-everything configured (beside an SDK-based equivalent). `--calls-only`: the
per-call latency alone, LevelCode beside the floor over several rounds, to compare a change to the
stdio path with the commit before it. Machines here are shared and noisy: compare the ratios, and
run it twice before believing a difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from levelcode.cli.aio import event_loop_factory  # noqa: E402
from levelcode.mcp.config.specs import Provenance, StdioServerSpec  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import McpConnection, connect  # noqa: E402
from levelcode.mcp.live.hub import McpHub  # noqa: E402
from levelcode.mcp.protocol.handshake import Era  # noqa: E402

USER = Provenance("user", "bench")
T = TypeVar("T")
ECHO = ("echo-server", [sys.executable, str(ROOT / "bench" / "echo_server.py")], "echo", {"message": "ping"})
EVERYTHING = (
    "server-everything",
    [str(ROOT / "node_modules" / ".bin" / "mcp-server-everything")],
    "echo",
    {"message": "ping"},
)


# --- the floor: a direct, blocking newline-JSON client -------------------------------------------------


class DirectClient:
    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, object]) -> dict[str, object]:
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        while True:
            message = json.loads(self.process.stdout.readline())
            if message.get("id") == self.next_id:
                return message["result"]  # type: ignore[no-any-return]

    def connect(self) -> None:
        info = {"name": "direct", "version": "1"}
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info})
        assert self.process.stdin is not None
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.process.stdin.flush()
        self.request("tools/list", {})

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()


def direct_connect(argv: list[str]) -> float:
    began = time.perf_counter()
    client = DirectClient(argv)
    client.connect()
    elapsed = time.perf_counter() - began
    client.close()
    return elapsed


WARMUP_CALLS = 300  # node's JIT and CPU frequency settle before anything is timed


def direct_calls(argv: list[str], tool: str, args: dict[str, object], count: int) -> list[float]:
    client = DirectClient(argv)
    client.connect()
    for _ in range(WARMUP_CALLS):
        client.request("tools/call", {"name": tool, "arguments": args})
    times = []
    for _ in range(count):
        began = time.perf_counter()
        client.request("tools/call", {"name": tool, "arguments": args})
        times.append(time.perf_counter() - began)
    client.close()
    return times


# --- LevelCode ----------------------------------------------------------------------------------------------


def spec_for(argv: list[str], name: str = "bench") -> StdioServerSpec:
    return StdioServerSpec(name, argv[0], USER, args=tuple(argv[1:]))


OPTIONS = ConnectOptions(workspace=ROOT)


async def levelcode_connect(argv: list[str], hint: Era | None = "legacy") -> float:
    began = time.perf_counter()
    connection = await connect(spec_for(argv), OPTIONS, hint=hint)
    elapsed = time.perf_counter() - began
    await connection.close()
    return elapsed


async def levelcode_calls(argv: list[str], tool: str, args: dict[str, object], count: int) -> list[float]:
    connection: McpConnection = await connect(spec_for(argv), OPTIONS, hint="legacy")
    for _ in range(WARMUP_CALLS):
        await connection.call_tool(tool, args)
    times = []
    for _ in range(count):
        began = time.perf_counter()
        await connection.call_tool(tool, args)
        times.append(time.perf_counter() - began)
    await connection.close()
    return times


async def levelcode_hub(servers: list[list[str]], concurrent: bool) -> float:
    """Seconds until every server is connected and listed, through the hub."""
    from levelcode.mcp.launch.trust import launch_fingerprint

    hub = McpHub(OPTIONS)
    specs = [spec_for(argv, f"s{i}") for i, argv in enumerate(servers)]
    for spec in specs:  # steady state: each server's protocol era is already remembered
        hub.memory._eras[launch_fingerprint(spec)] = "legacy" if "time" not in spec.command else "modern"
    began = time.perf_counter()
    if concurrent:
        await hub.start(specs)
    else:
        for spec in specs:
            await hub.start([spec])
    elapsed = time.perf_counter() - began
    assert all(s.status.running for s in hub.servers.values()), hub.servers
    await hub.reap_all()
    return elapsed


def direct_concurrent(servers: list[list[str]]) -> float:
    """The floor for starting several at once: direct clients on threads (the machine's own limit)."""
    from concurrent.futures import ThreadPoolExecutor

    began = time.perf_counter()
    with ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(direct_connect, servers))
    return time.perf_counter() - began


# --- the official SDK --------------------------------------------------------------------------------------


async def sdk_connect(argv: list[str]) -> float:
    from mcp import Client, StdioServerParameters

    began = time.perf_counter()
    async with Client(StdioServerParameters(command=argv[0], args=argv[1:]), mode="legacy") as client:
        await client.list_tools()
        return time.perf_counter() - began


async def sdk_calls(argv: list[str], tool: str, args: dict[str, object], count: int) -> list[float]:
    from mcp import Client, StdioServerParameters

    times = []
    async with Client(StdioServerParameters(command=argv[0], args=argv[1:]), mode="legacy") as client:
        await client.list_tools()
        for _ in range(WARMUP_CALLS):
            await client.call_tool(tool, args)
        for _ in range(count):
            began = time.perf_counter()
            await client.call_tool(tool, args)
            times.append(time.perf_counter() - began)
    return times


# --- whole-process `mcp list` ----------------------------------------------------------------------------

SDK_LIST_SCRIPT = """
import asyncio, sys
from mcp import Client, StdioServerParameters
async def main():
    async with Client(StdioServerParameters(command=sys.argv[1]), mode="legacy") as client:
        tools = (await client.list_tools()).tools
        print(len(tools), "tools")
asyncio.run(main())
"""


def whole_process(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True, timeout=60)
        times.append(time.perf_counter() - began)
    return times


def mcp_list_times(runs: int) -> tuple[list[float], list[float]]:
    everything = EVERYTHING[1][0]
    with tempfile.TemporaryDirectory() as home:
        settings = {"mcpServers": {"everything": {"command": everything}}}
        Path(home, "settings.json").write_text(json.dumps(settings))
        env = {**os.environ, "LEVELCODE_HOME": home}
        levelcode = str(Path(sys.executable).parent / "levelcode")
        whole_process([levelcode, "mcp", "list"], env, 1)  # the first run probes the protocol once
        ours = whole_process([levelcode, "-C", home, "mcp", "list"], env, runs)
        sdk = whole_process([sys.executable, "-c", SDK_LIST_SCRIPT, everything], env, runs)
    return ours, sdk


# --- reporting ------------------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def run_async(work: Awaitable[T]) -> T:
    """On the event loop LevelCode itself runs on (uvloop where available)."""
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        return runner.run(work)  # type: ignore[arg-type]


def repeat_async(make: Callable[[], Awaitable[float]], runs: int) -> list[float]:
    return [run_async(make()) for _ in range(runs)]


def report_server(
    label: str, argv: list[str], tool: str, args: dict[str, object], runs: int, calls: int
) -> None:
    print(f"\n== {label} ==")
    floors, ours_runs, sdks = [], [], []
    for _ in range(runs):  # interleaved, so a slow moment of the machine hits all three alike
        floors.append(direct_connect(argv))
        ours_runs.append(run_async(levelcode_connect(argv)))
        sdks.append(asyncio.run(sdk_connect(argv)))  # the SDK on its default loop
    floor_connect, ours_connect, sdk_connect_t = (statistics.median(v) for v in (floors, ours_runs, sdks))
    print(f"connect+list (median of {runs}, interleaved):")
    print(f"  floor (direct)  {ms(floor_connect)}")
    print(
        f"  levelcode       {ms(ours_connect)}   floor + {ms(ours_connect - floor_connect).strip()}  (target <= +20 ms)"
    )
    print(f"  official SDK    {ms(sdk_connect_t)}   floor + {ms(sdk_connect_t - floor_connect).strip()}")
    floor = direct_calls(argv, tool, args, calls)
    ours = run_async(levelcode_calls(argv, tool, args, calls))
    sdk = asyncio.run(sdk_calls(argv, tool, args, calls))
    base = statistics.median(floor)
    print(f"per call ({calls} calls of {tool}):      p50          p95       calls/s   p50 vs floor")
    for name, values in (("floor (direct)", floor), ("levelcode", ours), ("official SDK", sdk)):
        rate = len(values) / sum(values)
        ratio = statistics.median(values) / base
        print(f"  {name:15s} {ms(statistics.median(values))} {ms(p95(values))} {rate:10.0f}   {ratio:5.2f}x")
    print("  (target: levelcode <= 1.5x the floor)")


def report_calls(
    label: str, argv: list[str], tool: str, args: dict[str, object], runs: int, calls: int
) -> None:
    """Per-call latency only: `runs` rounds of `calls` calls each, floor and LevelCode alternating."""
    floor: list[float] = []
    ours: list[float] = []
    for _ in range(runs):
        floor += direct_calls(argv, tool, args, calls)
        ours += run_async(levelcode_calls(argv, tool, args, calls))
    base = statistics.median(floor)
    print(f"\n== {label}: {runs} rounds of {calls} calls of {tool} ==")
    print("                       p50         p95   p50 vs floor")
    for name, values in (("floor (direct)", floor), ("levelcode", ours)):
        p50 = statistics.median(values)
        print(f"  {name:15s} {p50 * 1e6:7.1f} µs  {p95(values) * 1e6:7.1f} µs   {p50 / base:5.2f}x")


MIXED = [
    ECHO[1],
    EVERYTHING[1],
    [str(ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"), str(ROOT)],
    [str(ROOT / "node_modules" / ".bin" / "mcp-server-memory")],
    [str(Path(sys.executable).parent / "mcp-server-time")],
]
SLEEPY = [[sys.executable, str(ROOT / "tests" / "servers" / "fault_server.py"), "--slow-start", "0.5"]] * 5


def report_concurrency(label: str, servers: list[list[str]], runs: int) -> None:
    singles = [
        statistics.median(repeat_async(lambda a=argv: levelcode_hub([a], True), runs)) for argv in servers
    ]
    slowest = max(singles)
    together = statistics.median(repeat_async(lambda: levelcode_hub(servers, True), runs))
    apart = statistics.median(repeat_async(lambda: levelcode_hub(servers, False), runs))
    floor = statistics.median([direct_concurrent(servers) for _ in range(runs)])
    print(f"\n== five servers: {label} (median of {runs}) ==")
    print(
        f"  slowest single           {ms(slowest)}   (each alone: {', '.join(f'{t * 1000:.0f}' for t in singles)} ms)"
    )
    print(
        f"  five, concurrently       {ms(together)}   {together / slowest:5.2f}x slowest single  (target <= 1.2x)"
    )
    print(f"  five, one after another  {ms(apart)}   {apart / slowest:5.2f}x slowest single")
    print(f"  floor, five on threads   {ms(floor)}   {floor / slowest:5.2f}x  (what this machine allows)")


SILENT_LEGACY = [
    sys.executable,
    str(ROOT / "tests" / "servers" / "fault_server.py"),
    "--era",
    "silent-legacy",
]


def report_probe(runs: int) -> None:
    """First contact (nothing remembered) against the era-known connection: the probe's cost."""
    print(f"\n== protocol probe on first contact (median of {runs}) ==")
    for label, argv in (
        ("server-everything (legacy)", EVERYTHING[1]),
        ("silent legacy server", SILENT_LEGACY),
    ):
        known = statistics.median(repeat_async(lambda a=argv: levelcode_connect(a, "legacy"), runs))
        first = statistics.median(repeat_async(lambda a=argv: levelcode_connect(a, None), runs))
        print(
            f"  {label:28s} era known {ms(known)}   first contact {ms(first)}   +{ms(first - known).strip()}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a smoke check")
    parser.add_argument("--calls-only", action="store_true", help="per-call latency only, beside the floor")
    opts = parser.parse_args()
    runs, calls = (3, 100) if opts.quick else (15, 1000)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    if opts.calls_only:
        for label, argv, tool, args in (ECHO, EVERYTHING):
            report_calls(label, argv, tool, args, runs, calls)
        return
    for label, argv, tool, args in (ECHO, EVERYTHING):
        report_server(label, argv, tool, args, runs, calls)
    report_probe(runs)
    report_concurrency("start-up is waiting (0.5 s sleep each)", SLEEPY, runs)
    report_concurrency("echo, everything, filesystem, memory, time (CPU-bound start-up)", MIXED, runs)
    ours, sdk = mcp_list_times(runs)
    print(f"\n== whole process: list one server-everything (median of {runs}) ==")
    print(f"  levelcode mcp list       {ms(statistics.median(ours))}   (target <= 1200 ms)")
    print(
        f"  SDK-based equivalent     {ms(statistics.median(sdk))}   {statistics.median(sdk) / statistics.median(ours):5.2f}x"
    )


if __name__ == "__main__":
    main()
