"""Host entries of the sandbox's network list, and which addresses count as local. Load-bearing
direction: an address of this machine or its local networks — in every spelling (mapped, 6to4,
NAT64 IPv6, a zone suffix) — is never public, so an entry that may reach only public addresses
never reaches it; and text that is not one host (a URL, a path, a bare `*`, a bad port) is
refused rather than guessed at. The second corpus: the forms users write (names, host:port,
wildcards, IPv4, IPv6 with and without a port, Unicode names) parse, and public addresses pass."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.policy.network_hosts import (
    HostEntry,
    host_entries,
    is_public_address,
    launcher_registry,
    parse_host_entry,
)

NOT_PUBLIC = [
    "127.0.0.1",
    "127.8.9.10",
    "0.0.0.0",
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # CGNAT, VPNs
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fe80::1%eth0",
    "fd00::1",
    "fc00::5",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.1.2.3",
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "not an address",
]
PUBLIC = ["8.8.8.8", "1.1.1.1", "203.0.113.80", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_local_addresses_are_not_public(address: str) -> None:
    assert not is_public_address(address)


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are(address: str) -> None:
    assert is_public_address(address)


@given(st.ip_addresses(v=4, network="127.0.0.0/8") | st.ip_addresses(v=4, network="10.0.0.0/8"))
def test_no_loopback_or_private_v4_address_is_public_in_any_v6_form(address: object) -> None:
    text = str(address)
    packed = int.from_bytes(bytes(map(int, text.split("."))), "big")
    for form in (text, f"::ffff:{text}", f"64:ff9b::{packed >> 16:x}:{packed & 0xFFFF:x}"):
        assert not is_public_address(form), form


REFUSED = [
    "",
    "   ",
    "https://api.example.com",
    "api.example.com/path",
    "user@api.example.com",
    "api example.com",
    "*",
    "*.",
    "*.com",  # a wildcard must name a domain with a dot
    "*.10.0.0.1",
    "api.example.com:0",
    "api.example.com:65536",
    "api.example.com:http",
    "[::1",
    "[::1]x",
    "-bad.example.com",
    "bad-.example.com",
    "a" * 64 + ".com",
    "exa_mple.com",
]


@pytest.mark.parametrize("text", REFUSED)
def test_what_is_not_one_host_is_refused_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        parse_host_entry(text)


PARSED = [
    ("api.example.com", HostEntry("api.example.com")),
    ("API.Example.COM.", HostEntry("api.example.com")),
    ("registry.local:4873", HostEntry("registry.local", 4873)),
    ("*.githubusercontent.com", HostEntry("githubusercontent.com", None, wildcard=True)),
    ("*.example.com:8443", HostEntry("example.com", 8443, wildcard=True)),
    ("10.0.0.5", HostEntry("10.0.0.5")),
    ("127.0.0.1:4873", HostEntry("127.0.0.1", 4873)),
    ("::1", HostEntry("::1")),
    ("[::1]:8080", HostEntry("::1", 8080)),
    ("[2001:DB8::1]", HostEntry("2001:db8::1")),
    ("bücher.example", HostEntry("xn--bcher-kva.example")),
    ("localhost", HostEntry("localhost")),
]


@pytest.mark.parametrize(("text", "entry"), PARSED)
def test_the_forms_users_write_parse(text: str, entry: HostEntry) -> None:
    assert parse_host_entry(text) == entry
    assert parse_host_entry(entry.text()) == entry  # written back, it reads the same


def test_an_entry_matches_its_host_on_its_ports_only() -> None:
    plain = parse_host_entry("api.example.com")
    assert plain.matches("api.example.com", 443)
    assert plain.matches("api.example.com", 80)
    assert not plain.matches("api.example.com", 22)
    assert not plain.matches("evil-api.example.com", 443)
    assert not plain.matches("api.example.com.evil.com", 443)
    assert not plain.matches("x.api.example.com", 443)
    ported = parse_host_entry("registry.local:4873")
    assert ported.matches("registry.local", 4873)
    assert not ported.matches("registry.local", 443)
    wildcard = parse_host_entry("*.example.com")
    assert wildcard.matches("cdn.example.com", 443)
    assert wildcard.matches("a.b.example.com", 443)
    assert not wildcard.matches("example.com", 443)
    assert not wildcard.matches("badexample.com", 443)


def test_a_lookalike_name_is_another_host() -> None:
    """A Cyrillic a (U+0430) in place of the Latin one: the punycode form differs, so no match."""
    listed = parse_host_entry("api.example.com")
    lookalike = parse_host_entry("\u0430pi.example.com")
    assert lookalike.host.startswith("xn--")
    assert not listed.matches(lookalike.host, 443)


def test_a_list_keeps_the_valid_entries_and_reports_the_rest() -> None:
    problems: list[str] = []
    found = host_entries(
        ["api.example.com", "API.example.com", 5, "https://x.com", "*.cdn.com"], problems.append
    )
    assert found == ("api.example.com", "*.cdn.com")
    assert len(problems) == 2
    assert "5" in problems[0]
    assert "not 'https://x.com'" in problems[1]


@pytest.mark.parametrize(
    ("program", "registry"),
    [
        ("npx", "npm"),
        ("/usr/bin/npx", "npm"),
        ("pnpm", "npm"),
        ("bunx", "npm"),
        ("uvx", "python"),
        ("/root/.pyenv/shims/uvx", "python"),
        ("pip3", "python"),
        ("pip3.12", "python"),
        ("python3", None),
        ("node", None),
        ("./npx-like", None),
        ("bash", None),
    ],
)
def test_the_launcher_names_its_registry(program: str, registry: str | None) -> None:
    assert launcher_registry(program) == registry
