"""Sandbox benchmark: what confining a command costs, per command, as the agent runs it.

    uv run python bench/sandbox_bench.py [--rounds N]

Runs `true`, `git status` (in a small repository) and `python3 -c pass` through the same spawn
path as run_command (ShellProcess, `bash -c`), confined (policy surveyed for each command, as
run_command does, then bwrap, then the check for git control entries it planted) and
unconfined, interleaved in one run in a shuffled order per round. Prints medians, the ratio
confined/unconfined and the added milliseconds, plus the survey's and the check's own medians.
`--files N` adds N files (in folders of 50, like a dependency tree) to the repository, untracked
and ignored, to show what the scans cost in a bigger workspace. Then the same for an MCP
server's start (spawn, handshake and the first tools/list of tests/servers/fault_server.py,
through LevelCode's connect): unconfined, sandboxed with the whole network (`"network": true`:
no egress proxy) and sandboxed behind the egress filter (the default) — the last two differ by
what the proxy and its forwarder add. Last, one HTTPS request (a new connection, TLS, GET) from
inside the sandbox to a server on 127.0.0.1: direct (the whole network) against through the
egress proxy (`--allow-host`). Machines here are shared and noisy: compare ratios, run it twice.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from levelcode.mcp.config.sandbox_entry import SandboxRequest  # noqa: E402
from levelcode.mcp.config.specs import Provenance, StdioServerSpec  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import connect  # noqa: E402
from levelcode.sandbox.confinement import Confinement, Wrap, current_confinement  # noqa: E402

try:  # absent before the check existed: the bench also runs against older trees, for comparison
    from levelcode.sandbox.confinement import planted_git_control
except ImportError:
    planted_git_control = None  # type: ignore[assignment]
from levelcode.tools.process_group import ShellProcess  # noqa: E402
from tests.support.registries import PACKAGE, package_registry  # noqa: E402

COMMANDS = {"true": "true", "git status": "git status --short", "python -c pass": "python3 -c pass"}


def small_repository(root: Path, files: int = 0) -> Path:
    repo = root / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(50):
        (repo / "src" / f"m{i}.py").write_text(f"VALUE = {i}\n")
    for i in range(files):
        folder = repo / "node_modules" / f"p{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.js").write_text("")
    (repo / ".gitignore").write_text("node_modules/\n")
    for args in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    return repo


async def timed(command: str, workspace: Path, confinement: Confinement | None) -> float:
    started = time.perf_counter()
    wrap: Wrap | None = None
    policy = None
    if confinement is not None:
        policy = confinement.policy_for(workspace)
        wrap = confinement.wrap(policy)
    process = await ShellProcess.start(command, workspace, lambda _chunk: None, wrap=wrap)
    try:
        await process.wait(60)
    finally:
        await process.stop()
    if policy is not None and planted_git_control is not None:
        planted_git_control(policy)
    if process.returncode != 0:
        raise SystemExit(f"{command!r} failed ({'confined' if confinement else 'unconfined'})")
    return (time.perf_counter() - started) * 1000


async def measure(
    rounds: int, workspace: Path, confinement: Confinement
) -> dict[tuple[str, bool], list[float]]:
    runs: dict[tuple[str, bool], list[float]] = {(name, c): [] for name in COMMANDS for c in (False, True)}
    for command in COMMANDS.values():  # warm caches once, untimed
        for confined in (False, True):
            await timed(command, workspace, confinement if confined else None)
    for _ in range(rounds):
        order = list(runs)
        random.shuffle(order)
        for name, confined in order:
            runs[name, confined].append(
                await timed(COMMANDS[name], workspace, confinement if confined else None)
            )
    return runs


SERVERS = {
    "fault server": StdioServerSpec(
        "bench",
        sys.executable,
        Provenance("user", "bench"),
        args=(str(ROOT / "tests/servers/fault_server.py"),),
    ),
    # fetched once from a registry on 127.0.0.1 (tests/support/registries.py), then from its cache
    "npx -y server": StdioServerSpec(
        "bench-npx",
        "npx",
        Provenance("user", "bench"),
        args=("-y", PACKAGE),
        env=(("npm_config_registry", "${NPM_CONFIG_REGISTRY}"),),
    ),
}


SERVER_VARIANTS = {  # how the server is confined: not, with the whole network, behind the filter
    "unconfined": None,
    "sandbox, network on": SandboxRequest(network=True),
    "sandbox, filtered": SandboxRequest(),
}


async def server_start(options: ConnectOptions, server: StdioServerSpec, variant: str) -> float:
    spec = dataclasses.replace(server, sandbox=SERVER_VARIANTS[variant])
    started = time.perf_counter()
    connection = await connect(spec, options, hint="legacy")
    elapsed = (time.perf_counter() - started) * 1000
    await connection.close()
    return elapsed


async def measure_servers(rounds: int, workspace: Path, server: StdioServerSpec) -> dict[str, list[float]]:
    options = ConnectOptions(workspace=workspace, servers_dir=workspace.parent / "servers")
    runs: dict[str, list[float]] = {variant: [] for variant in SERVER_VARIANTS}
    for variant in runs:  # warm up (and fill the caches), untimed
        await server_start(options, server, variant)
    for _ in range(rounds):
        for variant in random.sample(list(runs), len(runs)):
            runs[variant].append(await server_start(options, server, variant))
    return runs


def print_servers(name: str, servers: dict[str, list[float]]) -> None:
    plain = statistics.median(servers["unconfined"])
    print(f"{name:<22}{'median':>10}{'vs unconfined':>15}{'added':>9}")
    for variant, times in servers.items():
        median = statistics.median(times)
        print(f"{variant:<22}{median:>10.1f}{median / plain:>14.2f}x{median - plain:>+8.1f}")
    online, filtered = (
        statistics.median(servers["sandbox, network on"]),
        statistics.median(servers["sandbox, filtered"]),
    )
    print(
        f"  the egress filter adds to its sandboxed start: {filtered - online:+.1f} ms ({filtered / online:.2f}x)"
    )


# One HTTPS request per line of output: a new connection (a CONNECT tunnel when proxied), TLS, GET.
CLIENT = """
import ssl, sys, time, urllib.request
context = ssl._create_unverified_context()  # the bench's own self-signed certificate
for _ in range(int(sys.argv[2])):
    started = time.perf_counter()
    urllib.request.urlopen(sys.argv[1], context=context, timeout=30).read()
    print((time.perf_counter() - started) * 1000)
"""


@contextmanager
def https_server(scratch: Path) -> Iterator[int]:
    """An HTTPS server on 127.0.0.1 with a throwaway self-signed certificate; its port."""
    key, cert = scratch / "key.pem", scratch / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )

    class Hello(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def requests_in_sandbox(confinement: Confinement, workspace: Path, url: str, count: int) -> list[float]:
    policy = confinement.policy_for(workspace)
    argv, env = confinement.wrap(policy)([sys.executable, "-c", CLIENT, url, str(count)], dict(os.environ))
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the HTTPS client failed in the sandbox: {done.stdout}{done.stderr}")
    return [float(line) for line in done.stdout.split()]


def measure_requests(rounds: int, count: int, workspace: Path, scratch: Path) -> dict[str, list[float]]:
    runs: dict[str, list[float]] = {"direct": [], "proxied": []}
    with https_server(scratch) as port:
        url = f"https://127.0.0.1:{port}/"
        variants = {
            "direct": current_confinement(network=True),
            "proxied": current_confinement(network=False, hosts=(f"127.0.0.1:{port}",)),
        }
        for _ in range(rounds):
            for name in random.sample(list(variants), 2):
                runs[name] += requests_in_sandbox(variants[name], workspace, url, count)[1:]  # first: warm-up
    return runs


def survey_medians(confinement: Confinement, workspace: Path, rounds: int) -> tuple[float, float | None]:
    """The policy survey's median, and the after-check's (None where there is none)."""
    surveys, checks = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        policy = confinement.policy_for(workspace)
        surveys.append((time.perf_counter() - started) * 1000)
        if planted_git_control is not None:
            started = time.perf_counter()
            planted_git_control(policy)
            checks.append((time.perf_counter() - started) * 1000)
    return statistics.median(surveys), statistics.median(checks) if checks else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--server-rounds", type=int, default=15)
    parser.add_argument("--request-rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=21, help="HTTPS requests per sandboxed run")
    parser.add_argument("--files", type=int, default=0, help="extra untracked files in the repository")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as scratch:
        os.environ["LEVELCODE_HOME"] = str(Path(scratch) / "levelcode-home")  # its cache folder goes here
        confinement = current_confinement(network=False)
        if not confinement.available:
            print(f"no sandbox on this machine: {confinement.reason}")
            return 2
        workspace = small_repository(Path(scratch), args.files)
        runs = asyncio.run(measure(args.rounds, workspace, confinement))
        survey, check = survey_medians(confinement, workspace, args.rounds)
        with package_registry() as registry:  # the user's registry, as npm is told of it
            os.environ["NPM_CONFIG_REGISTRY"] = registry.url + "/"
            servers = {
                name: asyncio.run(measure_servers(args.server_rounds, workspace, spec))
                for name, spec in SERVERS.items()
            }
        requests = measure_requests(args.request_rounds, args.requests, workspace, Path(scratch))
    print(f"per-command cost, median of {args.rounds} interleaved runs (ms), spawn path of run_command")
    print(f"{'command':<16}{'unconfined':>12}{'confined':>12}{'ratio':>8}{'added':>9}")
    for name in COMMANDS:
        plain, boxed = statistics.median(runs[name, False]), statistics.median(runs[name, True])
        print(f"{name:<16}{plain:>12.1f}{boxed:>12.1f}{boxed / plain:>7.2f}x{boxed - plain:>+8.1f}")
    print(f"policy survey alone (per command): {survey:.2f} ms median")
    if check is not None:
        print(f"check for planted git control entries (per command): {check:.2f} ms median")
    print(f"MCP server start to its tool list, median of {args.server_rounds} interleaved runs (ms)")
    for name, runs_of_server in servers.items():
        print_servers(name, runs_of_server)
    direct, proxied = statistics.median(requests["direct"]), statistics.median(requests["proxied"])
    print(f"one HTTPS request from the sandbox (new connection), median of {len(requests['direct'])} (ms)")
    print(f"{'direct':>10}{'proxied':>10}{'ratio':>8}{'added':>9}")
    print(f"{direct:>10.2f}{proxied:>10.2f}{proxied / direct:>7.2f}x{proxied - direct:>+8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
