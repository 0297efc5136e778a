"""Every reader of a host entry gives the same answer: the egress filter, the package hosts it is
fed, the organisation's policy (its `allowedHosts`, and the host of its server URL patterns) and
the sign-in's address guard (the port a URL without one means). Load-bearing direction: where one
of them lets a (host, port) through that the others refuse, a host the user or the organisation
did not choose is reached — so every row is asked of each, and each must say the row's answer.

The table is the tricky cases: a wildcard against the name itself and its lookalikes, a trailing
dot, case, a Unicode name against its punycode, an explicit port against the web's, IPv6 literals
with and without brackets.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from levelcode.mcp.config.managed_servers import url_matches
from levelcode.mcp.http.oauth.address_guard import AddressGuard
from levelcode.mcp.http.origin import origin_of
from levelcode.policy.managed_policy import host_permitted
from levelcode.policy.network_hosts import WEB_PORTS, default_port, parse_host_entry
from levelcode.sandbox.egress_rules import EgressRules
from levelcode.sandbox.package_hosts import npm_sources

# (entry as written, host as a client writes it, port, whether the entry lets it through)
TABLE: Sequence[tuple[str, str, int, bool]] = (
    ("example.com", "example.com", 443, True),
    ("example.com", "example.com", 80, True),
    ("example.com", "EXAMPLE.Com", 443, True),
    ("example.com", "example.com.", 443, True),
    ("example.com.", "example.com", 443, True),
    ("example.com", "example.com", 8443, False),
    ("example.com", "www.example.com", 443, False),
    ("example.com", "badexample.com", 443, False),
    ("example.com:8443", "example.com", 8443, True),
    ("example.com:8443", "example.com", 443, False),
    ("example.com:443", "example.com", 80, False),
    ("*.example.com", "www.example.com", 443, True),
    ("*.example.com", "a.b.example.com", 80, True),
    ("*.example.com", "WWW.Example.COM.", 443, True),
    ("*.example.com", "example.com", 443, False),
    ("*.example.com", "badexample.com", 443, False),
    ("*.example.com", "www.example.com.evil.net", 443, False),
    ("*.example.com", "www.example.com", 8443, False),
    ("*.example.com:8443", "www.example.com", 8443, True),
    ("bücher.example", "xn--bcher-kva.example", 443, True),
    ("xn--bcher-kva.example", "BÜCHER.example", 443, True),
    ("bücher.example", "bucher.example", 443, False),
    ("10.0.0.5", "10.0.0.5", 80, True),
    ("10.0.0.5", "10.0.0.50", 80, False),
    ("[::1]:8080", "::1", 8080, True),
    ("[::1]:8080", "[::1]", 8080, True),
    ("[::1]:8080", "0:0:0:0:0:0:0:1", 8080, True),
    ("[::1]:8080", "::1", 443, False),
    ("[2001:db8::1]", "2001:db8::1", 443, True),
    ("[2001:db8::1]", "2001:db8::2", 443, False),
)
IDS = [f"{entry} {host}:{port}" for entry, host, port, _ in TABLE]


def bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@pytest.mark.parametrize(("entry", "host", "port", "allowed"), TABLE, ids=IDS)
def test_the_entry_itself(entry: str, host: str, port: int, allowed: bool) -> None:
    assert parse_host_entry(entry).matches(host, port) is allowed


@pytest.mark.parametrize(("entry", "host", "port", "allowed"), TABLE, ids=IDS)
def test_the_egress_filter(entry: str, host: str, port: int, allowed: bool) -> None:
    for rules in (EgressRules.from_texts([entry], []), EgressRules.from_texts([], [entry])):
        assert (rules.reach(host, port) is not None) is allowed


@pytest.mark.parametrize(("entry", "host", "port", "allowed"), TABLE, ids=IDS)
def test_the_package_hosts(entry: str, host: str, port: int, allowed: bool) -> None:
    """A registry URL the user configured, as the filter is then given it."""
    if entry.startswith("*."):
        pytest.skip("a registry URL names one host, never a wildcard")
    sources = npm_sources({"npm_config_registry": f"https://{entry}/"}, [])
    rules = EgressRules(listed=sources.configured)
    assert (rules.reach(host, port) is not None) is allowed


@pytest.mark.parametrize(("entry", "host", "port", "allowed"), TABLE, ids=IDS)
def test_the_organisations_allowed_hosts(entry: str, host: str, port: int, allowed: bool) -> None:
    """A user's entry naming just that host and port lies within the organisation's entry."""
    assert host_permitted(f"{bracketed(host)}:{port}", [entry]) is allowed


@pytest.mark.parametrize(("entry", "host", "port", "allowed"), TABLE, ids=IDS)
def test_the_organisations_server_urls(entry: str, host: str, port: int, allowed: bool) -> None:
    """The URL pattern's host is the entry; its port rule is its own (without one, any port)."""
    if parse_host_entry(entry).port is None and port not in WEB_PORTS:
        pytest.skip("a URL pattern without a port allows any port (managed_servers.py)")
    scheme = "http" if port == 80 else "https"
    netloc = bracketed(host) if port == default_port(scheme) else f"{bracketed(host)}:{port}"
    assert url_matches(f"{scheme}://{entry}", f"{scheme}://{netloc}/mcp") is allowed


def test_a_wildcard_the_organisation_lists_covers_the_same_wildcard_and_those_below() -> None:
    assert host_permitted("*.example.com", ["*.example.com"])
    assert host_permitted("*.api.example.com", ["*.example.com"])
    assert not host_permitted("*.example.com", ["*.api.example.com"])
    assert not host_permitted("example.com", ["*.example.com"])
    assert not host_permitted("*.example.com", ["example.com"])
    assert not host_permitted("*.example.com:8443", ["*.example.com"])


@pytest.mark.parametrize(
    ("url", "port"),
    [
        ("https://mcp.remote.test/mcp", 443),
        ("http://mcp.remote.test/mcp", 80),
        ("http://mcp.remote.test:8080/", 8080),
    ],
)
async def test_the_sign_in_guard_resolves_on_the_port_the_url_means(url: str, port: int) -> None:
    asked: list[tuple[str, int]] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return ["93.184.215.14"]

    assert not await AddressGuard(url, resolve=resolve).server_is_internal()
    assert asked == [("mcp.remote.test", port)]
    origin = origin_of(url)
    assert origin is not None
    assert origin[2] == port
