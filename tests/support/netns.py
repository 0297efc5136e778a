"""A network namespace of a test's own (`ip netns`), for the egress tests that need this machine to
have addresses the public-address check lets through: a veth pair inside it, one end with
OWN_IPV4 and the other with OWN_IPV6, names for them in the namespace's own hosts file
(/etc/netns/NAME/hosts, which `ip netns exec` puts in place of /etc/hosts), and a stand-in
service listening on them (netns_listener.py). Any global address would do: the namespace has
no route out, so nothing sent to these leaves the machine.

The namespace, its hosts file and the processes started in it are removed in every case (and
one left by a test run that was killed is removed by the next). Where `ip netns` is not
permitted (not root), the test is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import is_running, wait_for_output

OWN_IPV4 = "100.128.0.10"  # public to the check: just above the shared 100.64.0.0/10
OWN_IPV6 = "2a0f:9400:7e11::10"  # global unicast: not unique local, documentation or reserved
PREFIX = "lc-egress-"
LISTENER = Path(__file__).with_name("netns_listener.py")
ETC_NETNS = Path("/etc/netns")


@dataclass(frozen=True)
class Namespace:
    name: str

    def command(self, *argv: str) -> list[str]:
        """`argv` run inside the namespace (with its hosts file as /etc/hosts)."""
        return ["ip", "netns", "exec", self.name, *argv]


@contextlib.contextmanager
def network_namespace(hosts: Mapping[str, Sequence[str]]) -> Iterator[Namespace]:
    """A namespace with the veth pair and its addresses up, where each name of `hosts`
    resolves to its addresses; removed afterwards, whatever happened."""
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2) on this machine")
    _remove_left_over()
    namespace = Namespace(f"{PREFIX}{os.getpid()}-{secrets.token_hex(3)}")
    made = _ip("netns", "add", namespace.name)
    if made.returncode != 0:
        pytest.skip(f"`ip netns add` is not permitted here: {made.stderr.strip()}")
    try:
        _set_up(namespace.name, hosts)
        yield namespace
    finally:
        _remove(namespace.name)


@contextlib.contextmanager
def listening_inside(namespace: Namespace, record: Path, addresses: Sequence[str]) -> Iterator[Path]:
    """The stand-in service on ports 80 and 443 of `addresses` inside the namespace; what reaches
    it is appended to `record` (see `received`)."""
    process = subprocess.Popen(
        namespace.command(sys.executable, str(LISTENER), str(record), *addresses),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_output(process.stdout, "listening", within=30)
        yield record
    finally:
        process.kill()  # `ip netns exec` runs the listener in its own place: this is its pid
        process.communicate(timeout=30)


def received(record: Path) -> bytes:
    return record.read_bytes() if record.exists() else b""


def _set_up(name: str, hosts: Mapping[str, Sequence[str]]) -> None:
    steps = [
        ("link", "set", "lo", "up"),
        ("link", "add", "lcown4", "type", "veth", "peer", "name", "lcown6"),
        ("addr", "add", f"{OWN_IPV4}/24", "dev", "lcown4"),
        ("addr", "add", f"{OWN_IPV6}/64", "dev", "lcown6", "nodad"),  # usable at once
        ("link", "set", "lcown4", "up"),
        ("link", "set", "lcown6", "up"),
    ]
    for step in steps:
        done = _ip("-n", name, *step)
        assert done.returncode == 0, f"ip -n {name} {' '.join(step)}: {done.stderr}"
    folder = ETC_NETNS / name
    folder.mkdir(parents=True)
    lines = [f"{address} {host}" for host, addresses in hosts.items() for address in addresses]
    (folder / "hosts").write_text("\n".join(["127.0.0.1 localhost", "::1 localhost", *lines]) + "\n")


def _remove(name: str) -> None:
    _ip("netns", "del", name)
    shutil.rmtree(ETC_NETNS / name, ignore_errors=True)
    with contextlib.suppress(OSError):
        ETC_NETNS.rmdir()  # only when no other namespace has a folder there


def _remove_left_over() -> None:
    """Namespaces of ours whose test process is gone (it was killed before it could clean up)."""
    listed = _ip("netns", "list").stdout.split()
    for name in (word for word in listed if word.startswith(PREFIX)):
        pid = name.removeprefix(PREFIX).split("-", 1)[0]
        if pid.isdigit() and not is_running(int(pid)):
            _remove(name)


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=False)
