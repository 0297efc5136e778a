"""How long real MCP servers take to exit by themselves once their stdin closes, after a session
(initialize, tools/list): the measurement behind the transport's grace before it signals a server's
group (STDIN_CLOSE_GRACE_SECONDS, mcp/stdio/pipe_transport.py). Measures; never judges a figure.

    uv run python bench/stdin_close_bench.py [--runs N]

Each server is spawned by a stdlib client (no LevelCode code runs), which times from the close of
the server's stdin to its exit, waiting up to 3 s before killing it (then "still there"). The Node
reference servers (node_modules), the Python SDK's (the venv's; the 1.x SDK's in .venv-legacy-sdk
when it is there), FastMCP's, and bench/echo_server.py. The load average is printed: on a busy
machine every exit is later.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "node_modules" / ".bin"
VENV = Path(sys.executable).parent
LEGACY = ROOT / ".venv-legacy-sdk" / "bin" / "python"
GIVE_UP_SECONDS = 3.0


def python_server(imported: str, run: str = "server.run()") -> str:
    """A one-tool stdio server in a Python MCP framework: `imported` brings in its class as Server."""
    return f"{imported}\nserver = Server('bench')\n@server.tool()\ndef echo(message: str) -> str:\n    return message\n{run}\n"


SDK_SERVER = python_server("from mcp.server.mcpserver import MCPServer as Server")
LEGACY_SERVER = python_server("from mcp.server.fastmcp import FastMCP as Server")
FASTMCP_SERVER = python_server("from fastmcp import FastMCP as Server", "server.run(show_banner=False)")


def servers() -> dict[str, list[str]]:
    """Every server of those named above that this checkout has installed."""
    found = {
        "server-everything (Node)": [str(BIN / "mcp-server-everything")],
        "server-memory (Node)": [str(BIN / "mcp-server-memory")],
        "server-filesystem (Node)": [str(BIN / "mcp-server-filesystem"), str(ROOT)],
        "mcp-server-time (Python SDK)": [str(VENV / "mcp-server-time")],
        "mcp-server-git (Python SDK)": [str(VENV / "mcp-server-git"), "--repository", str(ROOT)],
        "MCPServer (Python SDK 2.x)": [sys.executable, "-c", SDK_SERVER],
        "FastMCP (fastmcp)": [sys.executable, "-c", FASTMCP_SERVER],
        "FastMCP (Python SDK 1.x)": [str(LEGACY), "-c", LEGACY_SERVER],
        "bench/echo_server.py": [sys.executable, str(ROOT / "bench" / "echo_server.py")],
    }
    return {name: argv for name, argv in found.items() if Path(argv[0]).exists()}


def exit_after_close(argv: list[str], home: Path) -> float | None:
    """Seconds from closing the server's stdin, after a session, to its exit; None: still there
    after GIVE_UP_SECONDS."""
    env = {**os.environ, "HOME": str(home), "MEMORY_FILE_PATH": str(home / "memory.jsonl")}
    server = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=home
    )
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout

    def ask(ident: int, method: str, params: dict[str, object]) -> None:
        stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}).encode() + b"\n"
        )
        stdin.flush()
        while json.loads(stdout.readline()).get("id") != ident:
            pass

    info = {"name": "stdin-close-bench", "version": "1"}
    ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
    stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    ask(2, "tools/list", {})
    began = time.perf_counter()
    stdin.close()
    try:
        server.wait(timeout=GIVE_UP_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return None
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    found = servers()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    times: dict[str, list[float | None]] = {name: [] for name in found}
    with tempfile.TemporaryDirectory(prefix="stdin-close-bench-") as home:
        for _ in range(runs):  # interleaved, so that a burst of load falls on every server alike
            for name, argv in found.items():
                times[name].append(exit_after_close(argv, Path(home)))
    print(f"\n== exit after stdin closed, after initialize and tools/list (median of {runs}) ==")
    print(f"  {'server':32} {'median':>8} {'max':>8}  still there after {GIVE_UP_SECONDS:.0f} s")
    for name, seen in times.items():
        done = [t for t in seen if t is not None]
        median = f"{statistics.median(done) * 1000:6.0f} ms" if done else "       -"
        most = f"{max(done) * 1000:6.0f} ms" if done else "       -"
        print(f"  {name:32} {median:>8} {most:>8}  {len(seen) - len(done)} of {runs}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
