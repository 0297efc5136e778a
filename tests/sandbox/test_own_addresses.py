"""Which addresses are this machine's own, asked of the kernel. Load-bearing direction: loopback,
the address this machine sends from, and either in an IPv6 form that carries it (mapped, 6to4,
NAT64) are its own. The second corpus: public addresses of other machines are not. (A public
IPv4 and a global IPv6 of this machine's, end to end through the proxy, inside a network
namespace: tests/e2e/test_sandbox_egress_own_addresses.py.)"""

from __future__ import annotations

import socket

import pytest

from levelcode.sandbox.own_addresses import is_own_address

OWN = ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::1"]
NOT_OWN = ["8.8.8.8", "::ffff:8.8.8.8", "2606:4700:4700::1111", "2002:808:808::1"]


@pytest.mark.parametrize("address", OWN)
def test_loopback_in_any_form_is_this_machines(address: str) -> None:
    assert is_own_address(address)


@pytest.mark.parametrize("address", NOT_OWN)
def test_other_machines_addresses_are_not(address: str) -> None:
    assert not is_own_address(address)


def test_the_address_this_machine_sends_from_is_its_own() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # picks a route and a source address; sends nothing
        except OSError as exc:
            pytest.skip(f"no IPv4 route here: {exc}")
        source = probe.getsockname()[0]
    assert is_own_address(source)
    assert is_own_address(f"::ffff:{source}")
