"""Which addresses a remote server's sign-in may send LevelCode to. Load-bearing direction: every
address that is not on the public internet — loopback, link-local (the cloud metadata service),
RFC 1918 and fc00::/7 private, carrier-grade NAT, multicast, reserved, and an IPv4 one inside an
IPv6 address (mapped, NAT64, 6to4) — is named as internal, with its kind. The second corpus:
public addresses, including neighbours of the private ranges, are not; and a server is internal
only when its name is this machine's or everything it resolves to is internal."""

from __future__ import annotations

import pytest

from levelcode.mcp.http.oauth.addresses import internal_kind, is_internal_host, literal_address

INTERNAL = {
    "127.0.0.1": "loopback",
    "127.1.2.3": "loopback",
    "::1": "loopback",
    "0.0.0.0": "loopback",
    "::": "loopback",
    "169.254.169.254": "link-local",
    "fe80::1": "link-local",
    "fe80::1%eth0": "link-local",
    "10.0.0.1": "private (RFC 1918)",
    "172.16.0.1": "private (RFC 1918)",
    "172.31.255.255": "private (RFC 1918)",
    "192.168.1.1": "private (RFC 1918)",
    "fc00::1": "unique local",
    "fd12:3456::1": "unique local",
    "100.64.0.1": "carrier-grade NAT",
    "224.0.0.1": "multicast",
    "ff02::1": "multicast",
    "192.0.2.1": "reserved",
    "198.18.0.1": "reserved",
    "240.0.0.1": "reserved",
    "255.255.255.255": "reserved",
    "2001:db8::1": "reserved",
    "::ffff:127.0.0.1": "loopback",
    "::ffff:169.254.169.254": "link-local",
    "64:ff9b::a9fe:a9fe": "link-local",
    "2002:7f00:1::": "loopback",
    "2002:a00:1::": "private (RFC 1918)",
    "not-an-address": "unreadable",
}

PUBLIC = [
    "93.184.215.14",
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",  # just past 172.16.0.0/12
    "172.15.255.255",  # just before it
    "100.128.0.1",  # just past 100.64.0.0/10
    "11.0.0.1",
    "169.255.0.1",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
]


@pytest.mark.parametrize(("address", "kind"), INTERNAL.items())
def test_internal_addresses_are_named_with_their_kind(address: str, kind: str) -> None:
    found = internal_kind(address)
    assert found is not None
    assert kind in found


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_not(address: str) -> None:
    assert internal_kind(address) is None


def test_a_server_is_internal_by_its_name_or_by_all_its_addresses() -> None:
    assert is_internal_host("localhost", [])
    assert is_internal_host("mcp.localhost", [])
    assert is_internal_host("mcp.corp.example", ["10.1.2.3", "fd00::3"])
    assert not is_internal_host("mcp.example.com", ["93.184.215.14"])
    assert not is_internal_host("mcp.example.com", ["93.184.215.14", "10.1.2.3"])  # not all
    assert not is_internal_host("unresolved.example", [])


def test_literal_addresses_are_told_from_names() -> None:
    assert literal_address("[::1]") == "::1"
    assert literal_address("127.0.0.1") == "127.0.0.1"
    assert literal_address("example.com") is None
