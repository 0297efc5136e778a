"""Whether an address is one of this machine's own, as the kernel sees it at the moment of the
check: a socket may be bound only to an address of one of this machine's interfaces (or one it
routes to itself, as all of 127.0.0.0/8), so binding one — port 0, never listening, closed at
once — answers it, for IPv4 and IPv6 alike, for the interfaces as they are now (addresses come
and go: DHCP, VPNs, containers), in the network namespace the caller runs in.

Opens, binds and closes a socket; never listens, connects or sends. Standard library and
policy/network_hosts.py only: the egress proxy (`python -I -S`) imports it. Fails closed: a bind
refused for any reason but "not this machine's address" counts as this machine's, and where the
kernel lets any address be bound (`ip_nonlocal_bind`), every address does.
"""

from __future__ import annotations

import errno
import ipaddress
import socket

from levelcode.policy.network_hosts import embedded_ipv4


def is_own_address(address: str) -> bool:
    """Whether a connection to `address` would reach this machine itself; for an IPv6 address
    that carries an IPv4 one (mapped, 6to4, NAT64), whether either is this machine's."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True  # not an address: nothing to connect to, so nothing to let through
    if not isinstance(ip, ipaddress.IPv6Address) or (inner := embedded_ipv4(ip)) is None:
        return _bindable(ip)
    return _bindable(inner) or (ip.ipv4_mapped is None and _bindable(ip))  # mapped: its IPv4 alone


def _bindable(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(ip), 0))
    except OSError as exc:
        return exc.errno != errno.EADDRNOTAVAIL
    return True
