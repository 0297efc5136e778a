"""What the egress proxy lets through: which (host, port) a sandboxed process may connect to, to
which of the addresses that host resolves to, and the one line that says why not.

Pure: names and addresses in, decisions out; never resolves or connects (egress_proxy.py does,
and asks here). Imported by the proxy process, so it stays within the standard library and
levelcode.core.

Two kinds of entries. `listed`: hosts the user named — in their settings, on the command line,
or as the registry their package manager is configured to use — reached whatever they resolve
to, since the user chose that machine (a registry on 127.0.0.1 included). `public`: the package
managers' defaults and every wildcard entry, reached only at public addresses that are not this
machine's own, so a name whose DNS an attacker controls cannot lead the proxy to the host's
loopback, the local network, or a service of this machine on its public IPv4 or global IPv6.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from levelcode.policy.network_hosts import (
    WEB_PORTS,
    HostEntry,
    is_public_address,
    parse_host_entry,
)

PURE = True

Reach = Literal["any", "public"]  # which addresses of an admitted host may be connected to


@dataclass(frozen=True)
class EgressRules:
    listed: tuple[HostEntry, ...] = ()
    public: tuple[HostEntry, ...] = ()

    @classmethod
    def from_texts(cls, listed: Iterable[str], public: Iterable[str]) -> EgressRules:
        """Rules from entry texts (ValueError on one that is not an entry)."""
        return cls(tuple(map(parse_host_entry, listed)), tuple(map(parse_host_entry, public)))

    def reach(self, host: str, port: int) -> Reach | None:
        """Which addresses of `host` may be reached on `port`; None when it is not on the list.
        `host` as the client wrote it; a name that is not a valid host is on no list."""
        if any(e.matches(host, port) and not e.wildcard for e in self.listed):
            return "any"
        if any(e.matches(host, port) for e in (*self.listed, *self.public)):
            return "public"
        return None

    def texts(self) -> list[str]:
        return [entry.text() for entry in (*self.listed, *self.public)]


def usable_addresses(addresses: Sequence[str], reach: Reach, own: Callable[[str], bool]) -> list[str]:
    """The addresses a connection may go to: all of them, or only the public ones that are not
    this machine's own (`own` says which are: own_addresses.py asks the kernel, at this moment)."""
    if reach == "any":
        return list(addresses)
    return [address for address in addresses if is_public_address(address) and not own(address)]


def refusal_line(host: str, port: int, why: str, hint: str) -> str:
    """The one line a refused connection leaves in the log: which host, why, how to allow it.
    `hint` may name the host as {host}. The host is shown escaped: it is the sandbox's text."""
    shown = host[:255].encode("unicode_escape").decode("ascii")  # control bytes too: one line
    name = f"[{shown}]" if ":" in shown else shown
    entry = name if port in WEB_PORTS else f"{name}:{port}"
    return f"{REFUSED} {name}:{port}: {why}; {hint.replace('{host}', entry)}"


REFUSED = "[sandbox] refused a connection to"
NOT_LISTED = "not on the network list"
PRIVATE_ONLY = (
    "it resolves only to private or loopback addresses or this machine's own, which a default or "
    "wildcard entry never reaches"
)
