"""Which network addresses a remote server's sign-in may send LevelCode to: public ones only.

A server's 401 names where its metadata is, and that metadata names the authorization server's
endpoints; a hostile or compromised server can point them at this machine (127.0.0.1), the cloud
metadata service (169.254.169.254) or the user's private network (10.x, 192.168.x, fc00::/7) and
have LevelCode fetch or post there (SSRF). Only a server that is itself on such an address (the
user's own local or company-internal server) may send its sign-in there.

Pure: classifies address strings, never resolves or connects (address_guard.py does, at connect
time). An IPv6 address that carries an IPv4 one (mapped, NAT64, 6to4) is judged by the one inside.
"""

from __future__ import annotations

import ipaddress

from levelcode.mcp.config.remote_urls import is_loopback_host

PURE = True

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_RFC1918 = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)


def internal_kind(address: str) -> str | None:
    """What kind of non-public address `address` is ("loopback", "link-local", "private" …), or
    None for an address on the public internet. Anything that is not an address is refused."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # fe80::1%eth0: the zone is not the address
    except ValueError:
        return "unreadable"
    inner = _embedded_ipv4(ip)
    if inner is not None:
        kind = internal_kind(str(inner))
        return f"{kind} (as {ip})" if kind else None
    return _kind(ip)


def _kind(ip: IPAddress) -> str | None:
    if ip.is_loopback or ip.is_unspecified:
        return "loopback (this machine)"
    if ip.is_link_local:
        return "link-local (where cloud metadata services answer)"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and any(ip in net for net in _RFC1918):
        return "private (RFC 1918)"
    if isinstance(ip, ipaddress.IPv6Address) and ip in ipaddress.IPv6Network("fc00::/7"):
        return "private (unique local, fc00::/7)"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED:
        return "shared (carrier-grade NAT)"
    if not ip.is_global:
        return "reserved (not on the public internet)"
    return None


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def literal_address(host: str) -> str | None:
    """`host` if it is an IP address written out (brackets stripped), else None (a name)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return None
    return bare


def is_internal_host(host: str, addresses: list[str]) -> bool:
    """A server's host is internal when it names this machine, or every address it resolves to
    is internal (a company server at 10.x); a name that resolved to nothing is not."""
    if is_loopback_host(host):
        return True
    return bool(addresses) and all(internal_kind(a) is not None for a in addresses)
