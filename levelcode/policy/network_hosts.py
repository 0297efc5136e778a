"""The hosts a sandboxed process may reach, as the user writes them: `api.example.com`,
`registry.local:4873`, `*.githubusercontent.com`, `10.0.0.5`, `[::1]:8080`; parsed, matched, and
which addresses count as private.

Pure: strings in, plain data out; never resolves a name, never opens a socket. The settings, the
server entries and the egress proxy (a standalone process) all read host entries here, so a host
the settings accept is the host the proxy lets through, no more.

- A host without a port allows the web's ports, 443 and 80; `host:port` allows that port only.
  A URL without a port means its scheme's (`default_port`): every reader of a URL asks here.
- `*.example.com` allows the names below example.com (not example.com itself), and only where
  they resolve to public addresses that are not this machine's own (sandbox/own_addresses.py
  asks the kernel which are): a wildcard is not a deliberate choice of one machine.
- Names are compared lower-case and in their ASCII (punycode) form, without a trailing dot, so a
  Unicode lookalike of a listed name is a different host.

`HostEntry.matches` and `HostEntry.covers` are the one host match: the egress filter, the package
hosts, the organisation's policy (its `allowedHosts` and its server URLs) all ask them.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

PURE = True

WEB_PORTS = (443, 80)  # what an entry without a port allows
DEFAULT_PORTS = {"https": 443, "http": 80}  # what a URL without a port means
Registry = Literal["npm", "python"]  # a package ecosystem, whose registry a launcher fetches from
# Programs that fetch packages and run them, by ecosystem: a sandboxed server started with one
# reaches that ecosystem's registry. The program's name decides, without its path or version.
LAUNCHERS: dict[str, Registry] = {
    **dict.fromkeys(("npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "bun"), "npm"),
    **dict.fromkeys(("uvx", "uv", "pip", "pip3", "pipx"), "python"),
}
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_LOCAL_NETWORKS = tuple(
    ipaddress.ip_network(text)
    for text in (
        "0.0.0.0/8",  # this host
        "10.0.0.0/8",
        "100.64.0.0/10",  # shared (CGNAT, VPNs)
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, cloud metadata
        "172.16.0.0/12",
        "192.0.0.0/24",  # protocol assignments
        "192.168.0.0/16",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and the broadcast address
        "::/128",
        "::1/128",
        "64:ff9b:1::/48",  # local-use NAT64
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated, still local)
        "ff00::/8",  # multicast
    )
)


@dataclass(frozen=True)
class HostEntry:
    """One allowed host: a name or an address, the port (None: 443 and 80), and whether it stands
    for the names below it (`*.name`)."""

    host: str  # lower-case ASCII name, or an address in its compressed form (no brackets)
    port: int | None = None
    wildcard: bool = False

    def matches(self, host: str, port: int) -> bool:
        """Whether a connection to `host` on `port` is this entry's. `host` as written anywhere
        (any case, a trailing dot, Unicode, an IPv6 address in brackets or not): it is compared
        as `request_host` writes it, and a text that is no host matches nothing."""
        return self.allows_port(port) and self.matches_name(host)

    def matches_name(self, host: str) -> bool:
        """Whether `host` (as `matches` takes it) is this entry's name, or below it for `*.name`."""
        bracketed = host.startswith("[") and host.endswith("]")
        name = request_host(host[1:-1] if bracketed else host)
        if name is None:
            return False
        return name.endswith("." + self.host) if self.wildcard else name == self.host

    def allows_port(self, port: int) -> bool:
        return port in WEB_PORTS if self.port is None else port == self.port

    def covers(self, other: HostEntry) -> bool:
        """Whether every connection `other` lets through, this entry lets through too (the
        organisation's `allowedHosts` against an entry the user wrote)."""
        ports = WEB_PORTS if other.port is None else (other.port,)
        if not all(self.allows_port(port) for port in ports):
            return False
        if other.wildcard:  # the names below other.host: below ours, or the very same set
            return self.wildcard and (other.host == self.host or self.matches_name(other.host))
        return self.matches_name(other.host)

    def text(self) -> str:
        name = ("*." if self.wildcard else "") + (f"[{self.host}]" if ":" in self.host else self.host)
        return name if self.port is None else f"{name}:{self.port}"


def default_port(scheme: str) -> int | None:
    """The port a URL of `scheme` means when it names none (https 443, http 80); None for a
    scheme that is not the web's."""
    return DEFAULT_PORTS.get(scheme.lower())


def launcher_registry(program: str) -> Registry | None:
    """The ecosystem whose registry `program` (a path or a name) fetches from; None for others."""
    name = PurePosixPath(program).name
    return LAUNCHERS.get(name) or LAUNCHERS.get(re.sub(r"[\d.]+$", "", name))


def parse_host_entry(text: str) -> HostEntry:
    """The entry `text` names; ValueError with a message for people when it names none."""
    raw = text.strip()
    if not raw:
        raise ValueError("expected a host name such as api.example.com; got an empty text")
    if "://" in raw or "/" in raw or "@" in raw or any(c.isspace() for c in raw):
        raise ValueError(
            f"expected a host name such as api.example.com, not {raw!r} (no scheme, path or user)"
        )
    wildcard = raw.startswith("*.")
    host_text, port = split_port(raw.removeprefix("*.") if wildcard else raw)
    host = request_host(host_text)
    if host is None:
        raise ValueError(f"{raw!r} is not a host name or an IP address")
    if wildcard and is_address(host):
        raise ValueError(f"{raw!r}: a wildcard names the hosts below a domain, not an address")
    if wildcard and "." not in host:
        raise ValueError(f"{raw!r}: a wildcard must name a domain with a dot, such as *.example.com")
    return HostEntry(host, port, wildcard)


def host_entries(values: Sequence[object], problem: Callable[[str], None]) -> tuple[str, ...]:
    """The valid entries of a `network` list, as `HostEntry.text` writes them (lower-case,
    punycode), each once; `problem` is told about every other value, which is left out."""
    found: list[str] = []
    for value in values:
        if not isinstance(value, str):
            problem(f"expected a host name such as api.example.com; got {value!r}, ignored")
            continue
        try:
            found.append(parse_host_entry(value).text())
        except ValueError as exc:
            problem(f"{exc}; ignored")
    return tuple(dict.fromkeys(found))


def split_port(text: str) -> tuple[str, int | None]:
    """(`host`, port) from `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address."""
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(f"{text!r}: an IPv6 address is written [address] or [address]:port")
        return host, _port(rest[1:]) if rest else None
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        return host, _port(port)
    return text, None  # a name, or a bare IPv6 address (several colons)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{text!r} is not a port (1 to 65535)")
    return int(text)


def request_host(text: str) -> str | None:
    """`text` as entries are compared: an address in its compressed form, a name lower-case in
    ASCII (punycode) without a trailing dot; None when it is neither."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    try:
        name = text.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None
    labels = name.split(".")
    if not name or len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        return None
    return name


def is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def is_public_address(address: str) -> bool:
    """Whether `address` may be reached by an entry that is not a deliberate choice of a machine:
    not the host itself (loopback, unspecified), not the local networks (private, unique local,
    link-local with the cloud metadata service, the shared CGNAT space many VPNs use), not
    multicast or reserved — also when an IPv6 address carries such an IPv4 address inside
    (mapped, 6to4 or NAT64). Documentation and benchmark ranges count as public: they reach no local
    machine, and some networks answer with them (a gateway's resolver). This machine's own public
    addresses are not known here (pure): the egress rules ask sandbox/own_addresses.py too."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    inner = embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    if inner is not None:
        return is_public_address(str(inner))
    return not any(ip in network for network in _LOCAL_NETWORKS)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries — IPv4-mapped, 6to4 or NAT64 — where a connection
    to it leads; None for a plain IPv6 address."""
    nat64 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None
    return ip.ipv4_mapped or ip.sixtofour or nat64
