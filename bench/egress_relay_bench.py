"""Egress relay benchmark: bytes through the real egress proxy and forwarder, and what one
connection through them costs.

    uv run python bench/egress_relay_bench.py [--rounds N] [--megabytes M] [--baseline TREE]

Starts the chain a sandboxed server's traffic takes — egress_forwarder.py (the sandbox's
127.0.0.1 proxy address) → the proxy's Unix socket → egress_proxy.py → an upstream on
127.0.0.1 — run by path with `python -I -S` as LevelCode runs them, without bwrap (the relays
copy the same bytes in the sandbox or out of it). Every connection is a CONNECT tunnel. Medians of
N rounds, each in a shuffled order:

  download   M MiB from the upstream to the client, until the upstream's end (MiB/s)
  upload     M MiB from the client, ended by a half-close, until the upstream's count (MiB/s)
  per conn   connect, CONNECT, a one-byte round trip, close (ms); 200 connections a round

beside the same client talking to the upstream directly (the floor), then the CPU time the
proxy and the forwarder spent on it (ms per MiB, ms per connection; from /proc, in clock ticks:
steadier than wall time on a busy machine). `--baseline TREE`: the same chain from another
tree's scripts (a checkout of an earlier commit), interleaved in the same rounds, with the
ratio. Machines here are shared and noisy: compare ratios, run it twice.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 256 * 1024
CONNECTIONS_PER_ROUND = 200
HOLD = "import sys; sys.stdout.write('ready'); sys.stdout.flush(); sys.stdin.read()"
Address = tuple[str, int]


class Chain(NamedTuple):
    entry: Address  # where the client connects
    pids: tuple[int, ...]  # the relaying processes, whose CPU time is counted


# --- the upstream: sinks, sources or echoes, as the client's first byte asks ------------------------


def serve_upstream(listener: socket.socket) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=answer, args=(conn,), daemon=True).start()


def answer(conn: socket.socket) -> None:
    with conn:
        ask = receive_exactly(conn, 9)
        mode, size = ask[:1], struct.unpack("!Q", ask[1:])[0]
        if mode == b"D":  # download: send `size` bytes, then the end
            send_bytes(conn, size)
        elif mode == b"U":  # upload: count until the client's half-close, then say how many
            count = 0
            while chunk := conn.recv(CHUNK):
                count += len(chunk)
            conn.sendall(struct.pack("!Q", count))
        elif mode == b"E":  # echo one byte
            conn.sendall(conn.recv(1))


def send_bytes(conn: socket.socket, size: int) -> None:
    block = b"x" * CHUNK
    while size > 0:
        conn.sendall(block[: min(size, CHUNK)])
        size -= min(size, CHUNK)


def receive_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError(f"ended after {len(data)} of {size} bytes")
        data += chunk
    return data


# --- the chain: proxy, forwarder, and a command that holds them open -----------------------------


@contextmanager
def chain(tree: Path, upstream: Address, folder: Path) -> Iterator[Chain]:
    """The forwarder's address, with the proxy behind it letting the upstream through."""
    port = free_port()
    scripts = tree / "levelcode" / "sandbox"
    forwarder = [str(scripts / "egress_forwarder.py"), str(folder / "proxy.sock"), str(port)]
    argv = [sys.executable, "-I", "-S", str(scripts / "egress_proxy.py"), "--socket-dir", str(folder)]
    argv += ["--listed", f"127.0.0.1:{upstream[1]}", "--hint", "", "--"]
    argv += [sys.executable, "-I", "-S", *forwarder, "--", sys.executable, "-c", HOLD]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        if os.read(process.stdout.fileno(), 16) != b"ready":  # both listen before their command runs
            raise RuntimeError(f"the chain from {tree} did not start")
        yield Chain(("127.0.0.1", port), (process.pid, *children(process.pid)))
    finally:
        process.communicate(b"", timeout=30)


def children(pid: int) -> list[int]:
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and _stat(int(n))[1:2] == [str(pid)]]


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (state, ppid, …)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def cpu_seconds(pids: tuple[int, ...]) -> float:
    """User and system time of `pids` so far (utime and stime, fields 14 and 15)."""
    ticks = sum(int(fields[11]) + int(fields[12]) for fields in map(_stat, pids) if fields)
    return ticks / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def open_tunnel(entry: Address, upstream: Address, direct: bool) -> socket.socket:
    conn = socket.create_connection(upstream if direct else entry)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if not direct:
        conn.sendall(f"CONNECT 127.0.0.1:{upstream[1]} HTTP/1.1\r\n\r\n".encode())
        answer = b""
        while not answer.endswith(b"\r\n\r\n"):
            answer += conn.recv(1)
        if b" 200 " not in answer:
            raise RuntimeError(f"the proxy said {answer!r}")
    return conn


# --- the measures ---------------------------------------------------------------------------------


def download(entry: Address, upstream: Address, size: int, direct: bool) -> float:
    began = time.perf_counter()
    with open_tunnel(entry, upstream, direct) as conn:
        conn.sendall(b"D" + struct.pack("!Q", size))
        got = 0
        while chunk := conn.recv(CHUNK):
            got += len(chunk)
    assert got == size, f"{got} of {size} bytes"
    return time.perf_counter() - began


def upload(entry: Address, upstream: Address, size: int, direct: bool) -> float:
    began = time.perf_counter()
    with open_tunnel(entry, upstream, direct) as conn:
        conn.sendall(b"U" + struct.pack("!Q", 0))
        send_bytes(conn, size)
        conn.shutdown(socket.SHUT_WR)
        got = struct.unpack("!Q", receive_exactly(conn, 8))[0]
    assert got == size, f"{got} of {size} bytes"
    return time.perf_counter() - began


def per_connection(entry: Address, upstream: Address, direct: bool) -> float:
    began = time.perf_counter()
    for _ in range(CONNECTIONS_PER_ROUND):
        with open_tunnel(entry, upstream, direct) as conn:
            conn.sendall(b"E" + struct.pack("!Q", 1) + b"!")
            assert receive_exactly(conn, 1) == b"!"
    return (time.perf_counter() - began) / CONNECTIONS_PER_ROUND


# --- reporting ------------------------------------------------------------------------------------


Times = dict[tuple[str, str], list[tuple[float, float]]]


def measure(entries: dict[str, Chain], upstream: Address, rounds: int, size: int) -> Times:
    """(wall, CPU) seconds per (measure, chain), every round in a fresh shuffled order."""
    works: dict[str, Callable[[Address, bool], float]] = {
        "download": lambda entry, direct: download(entry, upstream, size, direct),
        "upload": lambda entry, direct: upload(entry, upstream, size, direct),
        "per conn": lambda entry, direct: per_connection(entry, upstream, direct),
    }
    chains = {**entries, "direct": Chain(upstream, ())}
    times: Times = {(w, c): [] for w in works for c in chains}
    for _ in range(rounds):
        order = [(w, c) for w in works for c in chains]
        random.shuffle(order)
        for work, name in order:
            spent = cpu_seconds(chains[name].pids)
            wall = works[work](chains[name].entry, name == "direct")
            times[work, name].append((wall, cpu_seconds(chains[name].pids) - spent))
    return times


def report(times: Times, chains: list[str], size: int, rounds: int) -> None:
    mib = size / 2**20
    print(f"\nmedians of {rounds} rounds; {mib:.0f} MiB per transfer")
    ratio = "   this/baseline" if "baseline" in chains else ""
    print(f"{'':10s}" + "".join(f"{name:>16s}" for name in chains) + ratio)
    for work in ("download", "upload", "per conn"):
        wall = {name: statistics.median(w for w, _ in times[work, name]) for name in chains}
        cells = [
            f"{wall[n] * 1000:13.3f} ms" if work == "per conn" else f"{mib / wall[n]:11.0f} MiB/s"
            for n in chains
        ]
        line = f"{work:10s}" + "".join(f"{cell:>16s}" for cell in cells)
        print(line + (f"{wall['this'] / wall['baseline']:16.2f}x time" if ratio else ""))
    relaying = [name for name in chains if name != "direct"]
    print("\nCPU time of the proxy and the forwarder")
    print(f"{'':10s}" + "".join(f"{name:>16s}" for name in relaying) + ratio)
    for work in ("download", "upload", "per conn"):
        per = CONNECTIONS_PER_ROUND if work == "per conn" else mib
        cpu = {name: statistics.median(c for _, c in times[work, name]) / per for name in relaying}
        unit = "ms/conn" if work == "per conn" else "ms/MiB"
        line = f"{work:10s}" + "".join(f"{cpu[n] * 1000:10.3f} {unit:>5s}" for n in relaying)
        print(line + (f"{cpu['this'] / cpu['baseline']:16.2f}x" if ratio and cpu["baseline"] else ""))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--megabytes", type=int, default=256)
    parser.add_argument("--baseline", type=Path, help="another tree whose egress scripts to compare")
    opts = parser.parse_args()
    trees = {"this": ROOT, **({"baseline": opts.baseline.resolve()} if opts.baseline else {})}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    with socket.create_server(("127.0.0.1", 0)) as listener, tempfile.TemporaryDirectory() as temp:
        threading.Thread(target=serve_upstream, args=(listener,), daemon=True).start()
        upstream = ("127.0.0.1", int(listener.getsockname()[1]))
        with chain(trees["this"], upstream, Path(temp, "this")) as this:
            entries = {"this": this}
            if "baseline" in trees:
                with chain(trees["baseline"], upstream, Path(temp, "base")) as base:
                    entries["baseline"] = base
                    times = measure(entries, upstream, opts.rounds, opts.megabytes * 2**20)
            else:
                times = measure(entries, upstream, opts.rounds, opts.megabytes * 2**20)
    report(times, [*entries, "direct"], opts.megabytes * 2**20, opts.rounds)


if __name__ == "__main__":
    main()
