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
  per conn   connect, CONNECT, a one-byte round trip, close (ms); 50 connections a round

beside the same client talking to the upstream directly (the floor). `--baseline TREE`: the
same chain from another tree's scripts (a checkout of an earlier commit), interleaved in the
same rounds, with the ratio. Machines here are shared and noisy: compare ratios, run it twice.
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

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 256 * 1024
CONNECTIONS_PER_ROUND = 50
HOLD = "import sys; sys.stdout.write('ready'); sys.stdout.flush(); sys.stdin.read()"
Address = tuple[str, int]


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
def chain(tree: Path, upstream: Address, folder: Path) -> Iterator[Address]:
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
        yield ("127.0.0.1", port)
    finally:
        process.communicate(b"", timeout=30)


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


def measure(
    entries: dict[str, Address], upstream: Address, rounds: int, size: int
) -> dict[tuple[str, str], list[float]]:
    """Seconds per (measure, chain), every round in a fresh shuffled order."""
    works: dict[str, Callable[[Address, bool], float]] = {
        "download": lambda entry, direct: download(entry, upstream, size, direct),
        "upload": lambda entry, direct: upload(entry, upstream, size, direct),
        "per conn": lambda entry, direct: per_connection(entry, upstream, direct),
    }
    chains = [*entries, "direct"]
    times: dict[tuple[str, str], list[float]] = {(w, c): [] for w in works for c in chains}
    for _ in range(rounds):
        order = [(w, c) for w in works for c in chains]
        random.shuffle(order)
        for work, name in order:
            entry = entries.get(name, upstream)
            times[work, name].append(works[work](entry, name == "direct"))
    return times


def report(times: dict[tuple[str, str], list[float]], chains: list[str], size: int, rounds: int) -> None:
    print(f"\nmedians of {rounds} rounds; {size / 2**20:.0f} MiB per transfer")
    header = "".join(f"{name:>16s}" for name in chains)
    ratio = "   this/baseline" if "baseline" in chains else ""
    print(f"{'':10s}{header}{ratio}")
    for work in ("download", "upload", "per conn"):
        medians = {name: statistics.median(times[work, name]) for name in chains}
        if work == "per conn":
            cells = [f"{medians[n] * 1000:13.3f} ms" for n in chains]
        else:
            cells = [f"{size / 2**20 / medians[n]:11.0f} MiB/s" for n in chains]
        line = f"{work:10s}" + "".join(f"{cell:>16s}" for cell in cells)
        if ratio:  # for throughput above 1 is faster; for per conn below 1 is cheaper
            line += f"{medians['this'] / medians['baseline']:16.2f}x time"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--megabytes", type=int, default=64)
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
